import { copyFileSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config/config.js';
import { startService } from '../../src/channels/server/service.js';
import type { RunningService } from '../../src/channels/server/service.js';
import { runCli, spawnCli } from '../support/cli.js';

/** Tables compared row for row between the live database and its copy. */
const TABLES = ['stores', 'api_keys', 'checkouts', 'products', 'events'] as const;

function rowsOf(path: string, table: string): Map<string, string> {
  const db = new SqliteDatabase(path, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare(`select * from ${table}`).all() as Array<{ id: string; dispatched_at?: unknown }>;
    // The worker marks events dispatched after the copy was taken: the one column that moves on.
    return new Map(rows.map(({ dispatched_at: _moves, ...row }) => [row.id, JSON.stringify(row)]));
  } finally {
    db.close();
  }
}

describe('storefront backup (SQLite, while serving)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-backup-'));
  const databasePath = join(dir, 'live', 'storefront.sqlite');
  const backupFile = join(dir, 'storefront-backup.sqlite');
  const services: RunningService[] = [];
  afterAll(async () => {
    for (const service of services) await service.close();
  });

  const serve = async (path: string) => {
    const service = await startService(
      loadConfig({ DATABASE_URL: `sqlite:${path}`, PORT: '0', STOREFRONT_RATE_LIMIT: '100000' }),
      {
        logger: false,
      },
    );
    services.push(service);
    return service;
  };
  const cli = (...args: string[]) => runCli({ DATABASE_URL: `sqlite:${databasePath}` }, ...args);
  // The live copy is taken by another process, as an operator's cron would run it.
  const cliProcess = (...args: string[]) => spawnCli({ DATABASE_URL: `sqlite:${databasePath}` }, ...args);

  it('copies a database taking writes over HTTP, and the copy restores into a working service with every row', async () => {
    const live = await serve(databasePath);
    const key = live.demo!.key;
    const createProduct = async (n: number): Promise<string> => {
      const res = await fetch(`${live.url}/api/public/v1/products`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ nome: `Produto ${n}`, preco: 10 + (n % 90) }),
      });
      if (res.status !== 201) throw new Error(`write ${n} failed: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    };

    // A base of rows, then four writers that keep going until the backup has finished.
    const acknowledged: string[] = [];
    for (let n = 0; n < 100; n++) acknowledged.push(await createProduct(n));
    let writing = true;
    let next = 100;
    const writers = Array.from({ length: 4 }, async () => {
      while (writing) acknowledged.push(await createProduct(next++));
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const beforeBackup = [...acknowledged];
    const backup = JSON.parse((await cliProcess('backup', backupFile, '--json')).stdout);
    const duringBackup = acknowledged.length - beforeBackup.length;
    writing = false;
    await Promise.all(writers);

    expect(backup).toMatchObject({ file: backupFile, pages: expect.any(Number), bytes: expect.any(Number) });
    expect(backup.pages).toBeGreaterThan(0);
    expect(duringBackup).toBeGreaterThan(0); // the service really was taking writes
    expect(existsSync(`${backupFile}.partial`)).toBe(false);

    // A consistent snapshot: sound, every row committed before it began, nothing the live database lacks,
    // and each product with the event its transaction wrote.
    const copy = new SqliteDatabase(backupFile, { readonly: true });
    expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    copy.close();
    for (const table of TABLES) {
      const copied = rowsOf(backupFile, table);
      const current = rowsOf(databasePath, table);
      for (const [id, row] of copied) expect(current.get(id), `${table} ${id}`).toBe(row);
      expect(copied.size).toBeGreaterThan(0);
    }
    const copiedProducts = rowsOf(backupFile, 'products');
    for (const id of beforeBackup) expect(copiedProducts.has(id), id).toBe(true);
    const created = new Set(
      [...rowsOf(backupFile, 'events').values()]
        .map((row) => JSON.parse(JSON.parse(row).payload))
        .filter((event) => event.type === 'product.created')
        .map((event) => event.data.object.id),
    );
    expect(created).toEqual(new Set(copiedProducts.keys()));

    // The documented restore: the file becomes the database, beside the same secret.
    const restoredPath = join(dir, 'restored', 'storefront.sqlite');
    mkdirSync(join(dir, 'restored'));
    copyFileSync(backupFile, restoredPath);
    copyFileSync(join(dir, 'live', 'storefront.secret'), join(dir, 'restored', 'storefront.secret'));
    const restored = await serve(restoredPath);
    expect(restored.demo).toBeNull(); // the Demo store came back, no new one
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${restored.url}/api/public/v1${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      });
    for (const id of beforeBackup.slice(-25)) expect((await api(`/products/${id}`)).status).toBe(200);
    const listed = new Set<string>();
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&starting_after=${encodeURIComponent(cursor)}` : '';
      const page = (await (await api(`/products?limit=100${query}`)).json()) as {
        data: Array<{ id: string }>;
        next_cursor: string | null;
      };
      for (const product of page.data) listed.add(product.id);
      cursor = page.next_cursor;
    } while (cursor);
    expect(listed).toEqual(new Set(copiedProducts.keys()));
    const write = await api('/products', {
      method: 'POST',
      body: JSON.stringify({ nome: 'Depois', preco: 5 }),
    });
    expect(write.status).toBe(201);
  });

  it('refuses to overwrite a file, and a database that does not exist', async () => {
    const refused = await cli('backup', backupFile);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/already exists/) });
    const missing = await runCli(
      { DATABASE_URL: `sqlite:${join(dir, 'nowhere', 'db.sqlite')}` },
      'backup',
      join(dir, 'other.sqlite'),
    );
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringMatching(/no database at/) });
  });

  it('on PostgreSQL prints the pg_dump advice and exits non-zero', async () => {
    const refused = await runCli(
      {
        DATABASE_URL: 'postgres://storefront@127.0.0.1:5432/storefront',
        STOREFRONT_SECRET: 'a-secret-of-at-least-32-characters-long',
      },
      'backup',
      join(dir, 'pg.sqlite'),
    );
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/pg_dump --format=custom/) });
    expect(refused.stderr).toMatch(/pg_restore/);
    expect(existsSync(join(dir, 'pg.sqlite'))).toBe(false);
  });
});
