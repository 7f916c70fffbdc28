import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SERVER_PACKAGE = fileURLToPath(new URL('../..', import.meta.url));
const DATABASE_MODULE = join(SERVER_PACKAGE, 'dist/platform/db/database.js');
const PROCESSES = 6;
const ROUNDS = 12;

// Each process waits for about the same instant, opens (and so switches to WAL) the same new file,
// then writes in one transaction held for a moment, as a starting service's migrations do: the
// others open while the file is being switched or written.
const OPEN_AT_ONCE = `
const [url, at] = process.argv.slice(1);
const { openDatabase } = await import(${JSON.stringify(DATABASE_MODULE)});
const { sql } = await import('kysely');
while (Date.now() < Number(at) + Math.random() * 40) {}
const db = openDatabase(url);
await db.kysely.transaction().execute(async (trx) => {
  await sql\`create table if not exists opened (pid integer)\`.execute(trx);
  await sql\`insert into opened (pid) values (\${process.pid})\`.execute(trx);
  const until = Date.now() + 15;
  while (Date.now() < until) {}
});
await db.close();
`;

describe('SQLite: several processes opening one new database file at once (the built module)', () => {
  it(`all open it, in WAL mode: ${PROCESSES} processes, ${ROUNDS} rounds`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-open-race-'));
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const path = join(dir, `fresh-${round}.sqlite`);
        const at = String(Date.now() + 700);
        const opened = await Promise.allSettled(
          Array.from({ length: PROCESSES }, () =>
            run(process.execPath, ['--input-type=module', '-e', OPEN_AT_ONCE, `sqlite:${path}`, at], {
              cwd: SERVER_PACKAGE, // resolves kysely as the server does
            }),
          ),
        );
        const failures = opened.flatMap((result) =>
          result.status === 'rejected' ? [String((result.reason as { stderr?: string }).stderr)] : [],
        );
        expect(failures).toEqual([]);
        const check = new SqliteDatabase(path, { readonly: true });
        expect(check.pragma('journal_mode', { simple: true })).toBe('wal');
        expect(check.prepare('select count(*) from opened').pluck().get()).toBe(PROCESSES);
        check.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
