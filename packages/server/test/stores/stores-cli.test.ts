import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { testPki } from '../support/test-pki.js';

const cli = runCli;

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

  it('live mode once the store has a Pix key and its PSP settings, and no longer after the PSP is removed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-live-mode-'));
    const file = (name: string, content: string) => {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    };
    const store = await json('stores', 'create', '--name', 'Loja Ao Vivo');
    // Settings alone are refused without a Pix key, so a key first; the key alone is not enough.
    await json('stores', 'update', store.id, '--pix-key', '2f6c1a0e-6a7d-4c1b-9a43-5be1f0a7c9d2');
    const keyOnly = await cli(env, 'stores', 'update', store.id, '--checkout-mode', 'live');
    expect(keyOnly.code).toBe(1);
    expect(keyOnly.stderr).toMatch(/needs a live Pix provider configured.*pix-provider set/);

    const pki = testPki();
    await json(
      'pix-provider',
      'set',
      '--store',
      store.id,
      '--base-url',
      'https://psp.example.com/v2',
      '--client-id',
      'loja',
      '--client-secret-file',
      file('secret.txt', 's3cret'),
      '--cert',
      file('client.crt', pki.client.cert),
      '--key',
      file('client.key', pki.client.key),
    );
    const live = await json('stores', 'update', store.id, '--checkout-mode', 'live');
    expect(live).toMatchObject({ id: store.id, checkout_mode: 'live' });
    expect((await json('stores', 'list')).data).toContainEqual(
      expect.objectContaining({ id: store.id, checkout_mode: 'live' }),
    );
    // Removing the PSP of a live store warns that its pages now refuse orders.
    const removal = await cli(env, 'pix-provider', 'remove', '--store', store.id);
    expect(removal.code).toBe(0);
    expect(removal.stderr).toMatch(/is in live checkout mode: its purchase pages now refuse orders/);
    // Back to test is always allowed; without the PSP, live is refused again.
    expect(await json('stores', 'update', store.id, '--checkout-mode', 'test')).toMatchObject({
      checkout_mode: 'test',
    });
    const removed = await cli(env, 'stores', 'update', store.id, '--checkout-mode', 'live');
    expect(removed.code).toBe(1);
    expect(removed.stderr).toMatch(/needs a live Pix provider configured/);
  });
});
