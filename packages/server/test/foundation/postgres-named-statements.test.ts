import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatementNames } from '../../src/platform/db/postgres-named-statements.js';
import type { TestDatabase } from '../support/test-databases.js';
import { POSTGRES_URL, createTestDatabase } from '../support/test-databases.js';

describe('statement names', () => {
  it('names each distinct text once, leaves schema changes and texts past the bound unnamed', () => {
    const names = new StatementNames(2);
    const first = names.nameOf('select 1');
    expect(first).toMatch(/^sf_\d+$/);
    expect(names.nameOf('select 1')).toBe(first);
    expect(names.nameOf('alter table t add column c int')).toBeUndefined();
    const second = names.nameOf('select 2');
    expect(second).not.toBe(first);
    expect(names.nameOf('select 3')).toBeUndefined();
    expect(names.nameOf('select 2')).toBe(second);
    expect(names.rename('select 2')).not.toBe(second);
  });
});

const onPostgres = POSTGRES_URL ? describe : describe.skip;
const title = POSTGRES_URL
  ? 'named statements on PostgreSQL'
  : 'named statements on PostgreSQL [skipped: STOREFRONT_TEST_DATABASE_URL is not set]';

onPostgres(title, () => {
  let database: TestDatabase;
  const db = () => database.db.kysely;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    await sql`create table named_items (id text primary key, name text not null)`.execute(db());
  });
  afterAll(() => database?.drop());

  it('runs reads, writes and transactions with new values each time', async () => {
    for (const [id, name] of [
      ['a', 'Água'],
      ['b', 'Pão'],
    ]) {
      await db()
        .insertInto('named_items' as never)
        .values({ id, name } as never)
        .execute();
    }
    const byId = (id: string) =>
      sql<{ name: string }>`select name from named_items where id = ${id}`.execute(db());
    expect((await byId('a')).rows).toEqual([{ name: 'Água' }]);
    expect((await byId('b')).rows).toEqual([{ name: 'Pão' }]);
    await db()
      .transaction()
      .execute(async (trx) => {
        await sql`update named_items set name = ${'Café'} where id = ${'b'}`.execute(trx);
        expect((await byId('b')).rows).toEqual([{ name: 'Pão' }]); // not yet committed
      });
    expect((await byId('b')).rows).toEqual([{ name: 'Café' }]);
  });

  it('prepares a statement once per connection and reuses it', async () => {
    const seen = await db()
      .connection()
      .execute(async (connection) => {
        await sql`select ${1}::int as one`.execute(connection);
        await sql`select ${2}::int as one`.execute(connection);
        const { rows } = await sql<{
          statement: string;
        }>`select statement from pg_prepared_statements where statement like ${'select $1::int as one%'}`.execute(
          connection,
        );
        return rows;
      });
    expect(seen).toHaveLength(1);
  });

  it('recovers when another process changes the columns of a table behind a prepared select *', async () => {
    const all = () =>
      db()
        .connection()
        .execute((connection) => sql`select * from named_items where id = ${'a'}`.execute(connection));
    expect((await all()).rows).toEqual([{ id: 'a', name: 'Água' }]);
    const other = new pg.Client({ connectionString: POSTGRES_URL!, options: database.env.PGOPTIONS });
    await other.connect();
    await other.query('alter table named_items add column stock int not null default 3');
    await other.end();
    // At most the first query after the change fails (PostgreSQL refuses the cached plan); then the
    // statement is prepared again under a new name.
    const first = await all().then(
      (result) => result.rows,
      (error: { code?: string }) => error.code,
    );
    expect([[{ id: 'a', name: 'Água', stock: 3 }], '0A000']).toContainEqual(first);
    expect((await all()).rows).toEqual([{ id: 'a', name: 'Água', stock: 3 }]);
  });
});
