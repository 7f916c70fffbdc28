import { execFile } from 'node:child_process';
import net from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DEMO_STORE_NAME } from '../../src/flows/demo-store.js';
import { spawnChild } from '../support/children.js';
import { scaled } from '../support/time-scale.js';

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
    expect(Object.keys(store).sort()).toEqual([
      'checkout_mode',
      'default_checkout_id',
      'handle',
      'id',
      'name',
    ]);
    expect(store).toMatchObject({ name: 'Loja do Zé', handle: 'loja-do-ze', checkout_mode: 'test' });

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
    const child = spawnChild(process.execPath, [BIN, 'serve'], { env: { ...process.env, ...fresh } });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    const key = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no key printed: ${out}`)), scaled(20_000));
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
    // The start output says where the API and its reference are.
    expect(out).toContain(`Storefront API at ${url}/api/public/v1 · reference: ${url}/docs`);
    const res = await fetch(`${url}/api/public/v1/checkouts`, {
      headers: { authorization: `Bearer ${demoKey}` },
    });
    expect(res.status).toBe(200);
    // Beside the key, the link to the demo product's purchase page, which answers.
    const link = /Buy its demo product \(test mode\): (http:\/\/\S+)/.exec(out)?.[1];
    expect(link).toBe(`${url}/p/loja-de-demonstracao/curso-de-demonstracao`);
    const page = await fetch(link!);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Curso de demonstração');
    // The demo store speaks Portuguese: on its page and in its Pix code (which is ASCII).
    expect(html).toContain('Loja de demonstração');
    expect(html).not.toContain('Demo store');
    const charge = await fetch(`${url}/api/public/v1/payments/pix`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demoKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 1 }),
    });
    expect((await charge.json()).pix.copy_paste).toContain('5920Loja de demonstracao');
    const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);

    // A second start finds the store and prints no key.
    const again = await cli({ ...fresh }, 'stores', 'list', '--json');
    expect(JSON.parse(again.stdout).data.map((s: { name: string }) => s.name)).toEqual([DEMO_STORE_NAME]);
  });

  it('a busy port is one line naming HOST and PORT, a non-zero exit, and no Demo store created', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    const fresh = { DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'sf-busy-')), 'busy.sqlite')}` };
    try {
      const failure = await cli({ ...fresh, PORT: String(port), HOST: '127.0.0.1' }, 'serve').then(
        () => null,
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(failure?.code).toBe(1);
      expect(failure?.stderr.trim().split('\n')).toEqual([
        `storefront: cannot listen on HOST=127.0.0.1 PORT=${port}: the port is already in use; stop the other process or set PORT to a free port.`,
      ]);
      expect(failure?.stdout).not.toMatch(/sk_test_/);
      // The key of a Demo store is shown once: a start that could not listen must not spend it.
      expect(JSON.parse((await cli(fresh, 'stores', 'list', '--json')).stdout).data).toEqual([]);
    } finally {
      taken.close();
    }
  });
});

describe('npm start', () => {
  const ROOT = new URL('../../../../', import.meta.url).pathname;

  it('stops the server when npm itself gets SIGTERM', async () => {
    const env = {
      ...process.env,
      DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'sf-npm-')), 'npm.sqlite')}`,
      PORT: '0',
    };
    // --ignore-scripts skips the prestart build (this suite runs on the built output already).
    const npm = spawnChild('npm', ['start', '--silent', '--ignore-scripts'], { cwd: ROOT, env });
    let out = '';
    npm.stdout.on('data', (chunk) => (out += chunk));
    npm.stderr.on('data', (chunk) => (out += chunk));
    const url = await new Promise<string>((resolve, reject) => {
      npm.on('exit', () => reject(new Error(`npm exited before serving: ${out}`)));
      npm.stdout.on('data', () => {
        const match = /Storefront API at (http:\/\/\S+)\/api\/public\/v1/.exec(out);
        if (match) resolve(match[1]!);
      });
    });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);

    const npmExited = new Promise((resolve) => npm.on('exit', resolve));
    npm.kill('SIGTERM');
    await npmExited;
    // The server shuts down with npm: its port stops answering (it drains first, so wait for that).
    for (;;) {
      const answered = await fetch(`${url}/healthz`).then(
        () => true,
        () => false,
      );
      if (!answered) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});
