import { execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const BIN = new URL('../../bin/storefront.js', import.meta.url).pathname;

function cli(env: Record<string, string>, ...args: string[]) {
  return run(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
}

describe('storefront CLI (on SQLite)', () => {
  const env = { DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'sf-cli-')), 'cli.sqlite')}` };

  it('migrate, then stores create/list and keys create/list/revoke with --json', async () => {
    expect(JSON.parse((await cli(env, 'migrate', '--json')).stdout)).toEqual({
      migrated: true,
      dialect: 'sqlite',
    });

    const store = JSON.parse((await cli(env, 'stores', 'create', '--name', 'Loja do Zé', '--json')).stdout);
    expect(Object.keys(store).sort()).toEqual(['default_checkout_id', 'id', 'name']);
    expect(store.name).toBe('Loja do Zé');

    const listed = JSON.parse((await cli(env, 'stores', 'list', '--json')).stdout);
    expect(listed.data.map((s: { id: string }) => s.id)).toContain(store.id);

    const key = JSON.parse(
      (
        await cli(
          env,
          'keys',
          'create',
          '--store',
          store.id,
          '--mode',
          'live',
          '--scopes',
          'products:read,pix:write',
          '--json',
        )
      ).stdout,
    );
    expect(Object.keys(key).sort()).toEqual(['id', 'key', 'mode', 'scopes', 'store_id']);
    expect(key.key).toMatch(/^sk_live_[0-9A-Za-z]{40}$/);
    expect(key.scopes).toEqual(['products:read', 'pix:write']);

    const keys = JSON.parse((await cli(env, 'keys', 'list', '--store', store.id, '--json')).stdout);
    expect(keys.data).toHaveLength(1);
    expect(JSON.stringify(keys)).not.toContain(key.key);
    expect(keys.data[0].prefix).toBe(`${key.key.slice(0, 12)}…`);

    expect(JSON.parse((await cli(env, 'keys', 'revoke', key.id, '--json')).stdout)).toEqual({
      id: key.id,
      revoked: true,
    });
    const after = JSON.parse((await cli(env, 'keys', 'list', '--store', store.id, '--json')).stdout);
    expect(after.data[0].revoked_at).not.toBeNull();
  });

  it('refuses unknown scopes, bad modes and unknown stores with a message and a non-zero exit', async () => {
    const store = JSON.parse((await cli(env, 'stores', 'create', '--name', 'S', '--json')).stdout);
    await expect(
      cli(env, 'keys', 'create', '--store', store.id, '--mode', 'test', '--scopes', 'products:delete'),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('unknown scope "products:delete"'),
    });
    await expect(
      cli(env, 'keys', 'create', '--store', store.id, '--mode', 'prod', '--scopes', 'all'),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('--mode must be test or live'),
    });
    await expect(
      cli(env, 'keys', 'create', '--store', 'nope', '--mode', 'test', '--scopes', 'all'),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('no store with id nope'),
    });
  });

  it('exits non-zero naming the variable on a bad configuration', async () => {
    await expect(cli({ ...env, PORT: 'abc' }, 'migrate')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('PORT: must be a whole number'),
    });
  });

  it('serve and worker stop at start on a malformed SMTP_URL, naming it', async () => {
    for (const command of ['serve', 'worker']) {
      await expect(
        cli({ ...env, PORT: '0', SMTP_URL: 'smtp//mail.example.com' }, command),
      ).rejects.toMatchObject({
        code: 2,
        stderr: expect.stringContaining('SMTP_URL: must be a URL'),
      });
    }
  });

  it('serve creates the Demo store on an empty database, prints its key once, and stops cleanly on SIGTERM', async () => {
    const fresh = {
      DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'sf-serve-')), 'serve.sqlite')}`,
      PORT: '0',
    };
    const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, ...fresh } });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    const key = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no key printed: ${out}`)), 20_000);
      child.stdout.on('data', () => {
        const match = /sk_test_[0-9A-Za-z]{40}/.exec(out);
        const listening = /listening at (http:\/\/[^"\s]+)/.exec(out);
        if (match && listening) {
          clearTimeout(timer);
          resolve(`${match[0]} ${listening[1]}`);
        }
      });
    });
    const [demoKey, url] = key.split(' ');
    const res = await fetch(`${url}/api/public/v1/checkouts`, {
      headers: { authorization: `Bearer ${demoKey}` },
    });
    expect(res.status).toBe(200);
    const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);

    // A second start finds the store and prints no key.
    const again = await cli({ ...fresh }, 'stores', 'list', '--json');
    expect(JSON.parse(again.stdout).data.map((s: { name: string }) => s.name)).toEqual(['Demo store']);
  });
});
