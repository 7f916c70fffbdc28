import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const BIN = new URL('../../bin/storefront.js', import.meta.url).pathname;

/** Runs the built CLI; a failing command resolves too, with its exit code and stderr. */
async function cli(env: Record<string, string>, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

// Each command is a fresh Node process (a few seconds each on a busy machine).
describe('storefront stores: handle and checkout mode (on SQLite)', { timeout: 120_000 }, () => {
  const env = { DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'sf-handle-')), 'cli.sqlite')}` };
  const json = async (...args: string[]) => {
    const result = await cli(env, ...args, '--json');
    if (result.code !== 0) throw new Error(result.stderr);
    return JSON.parse(result.stdout);
  };

  it('derives a unique handle from the name, -2 on collision, test mode by default; list shows both', async () => {
    const first = await json('stores', 'create', '--name', 'Café do Zé');
    const second = await json('stores', 'create', '--name', 'Cafe do ZE!');
    expect(first).toMatchObject({ handle: 'cafe-do-ze', checkout_mode: 'test' });
    expect(second.handle).toBe('cafe-do-ze-2');
    const short = await json('stores', 'create', '--name', 'A');
    expect(short.handle).toBe('loja-a');

    const listed = await json('stores', 'list');
    expect(listed.data).toContainEqual(
      expect.objectContaining({ id: first.id, handle: 'cafe-do-ze', checkout_mode: 'test' }),
    );
  });

  it('takes a given handle at the 3 and 40 character bounds and refuses one outside, taken or malformed', async () => {
    expect((await json('stores', 'create', '--name', 'X', '--handle', 'abc')).handle).toBe('abc');
    const forty = 'a'.repeat(40);
    expect((await json('stores', 'create', '--name', 'Y', '--handle', forty)).handle).toBe(forty);

    const refusals: [string, RegExp][] = [
      ['ab', /3 to 40 characters/],
      ['a'.repeat(41), /3 to 40 characters/],
      ['Loja', /a-z, 0-9 and dashes/],
      ['-loja', /start and end/],
      ['abc', /already used/],
    ];
    const results = await Promise.all(
      refusals.map(([handle]) => cli(env, 'stores', 'create', '--name', 'Z', '--handle', handle)),
    );
    results.forEach((result, i) => {
      expect(result.code, refusals[i]![0]).toBe(1);
      expect(result.stderr).toMatch(refusals[i]![1]);
    });
  });

  it('updates the handle and refuses one another store has; live mode needs a live provider', async () => {
    const store = await json('stores', 'create', '--name', 'Loja Nova');
    const updated = await json(
      'stores',
      'update',
      store.id,
      '--handle',
      'nova-loja',
      '--checkout-mode',
      'test',
    );
    expect(updated).toMatchObject({ handle: 'nova-loja', checkout_mode: 'test' });

    const taken = await cli(env, 'stores', 'update', store.id, '--handle', 'abc');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/"abc" is already used by another store/);

    const live = await cli(env, 'stores', 'update', store.id, '--checkout-mode', 'live');
    expect(live.code).toBe(1);
    expect(live.stderr).toMatch(/needs a live Pix provider configured/);
    const liveCreate = await cli(env, 'stores', 'create', '--name', 'L', '--checkout-mode', 'live');
    expect(liveCreate.code).toBe(1);
    const bad = await cli(env, 'stores', 'update', store.id, '--checkout-mode', 'prod');
    expect(bad.stderr).toMatch(/must be test or live/);

    const listed = await json('stores', 'list');
    expect(listed.data).toContainEqual(expect.objectContaining({ id: store.id, checkout_mode: 'test' }));
    expect(listed.data.filter((s: { name: string }) => s.name === 'L')).toEqual([]);
  });
});
