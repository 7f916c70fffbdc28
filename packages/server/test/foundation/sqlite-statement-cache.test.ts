import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withStatementCache } from '../../src/platform/db/sqlite-statement-cache.js';

describe('SQLite statement cache', () => {
  let sqlite: SqliteDatabase.Database;
  let db: Kysely<Record<string, Record<string, unknown>>>;

  beforeEach(async () => {
    sqlite = new SqliteDatabase(':memory:');
    db = new Kysely({ dialect: new SqliteDialect({ database: withStatementCache(sqlite, 3) }) });
    await sql`create table items (id text primary key, name text, price integer, note text)`.execute(db);
    await sql`insert into items values ('a', 'Água', 10, null), ('b', 'Pão', 0, 'x')`.execute(db);
  });

  afterEach(() => db.destroy());

  it('returns the same row objects better-sqlite3 builds itself', async () => {
    const query = 'select * from items order by id';
    const { rows } = await sql.raw(query).execute(db);
    expect(rows).toEqual(sqlite.prepare(query).all());
    expect(Object.keys(rows[0] as object)).toEqual(['id', 'name', 'price', 'note']);
    // A repeated column name keeps the last value, as better-sqlite3 does.
    const joined = 'select a.id, b.id from items a join items b on b.id > a.id';
    expect((await sql.raw(joined).execute(db)).rows).toEqual(sqlite.prepare(joined).all());
  });

  it('reuses a statement with new parameters and still runs writes', async () => {
    const byId = (id: string) => db.selectFrom('items').selectAll().where('id', '=', id).executeTakeFirst();
    expect((await byId('a'))?.name).toBe('Água');
    expect((await byId('b'))?.name).toBe('Pão');
    const result = await db.updateTable('items').set({ price: 5 }).where('id', '=', 'b').executeTakeFirst();
    expect(result.numUpdatedRows).toBe(1n);
    expect((await byId('b'))?.price).toBe(5);
    const inserted = await db
      .insertInto('items')
      .values({ id: 'c', name: 'Café', price: 7, note: null })
      .returning(['id', 'price'])
      .execute();
    expect(inserted).toEqual([{ id: 'c', price: 7 }]);
  });

  it('sees the new columns of a table changed after a statement was cached', async () => {
    const all = () => db.selectFrom('items').selectAll().where('id', '=', 'a').executeTakeFirst();
    expect(Object.keys((await all())!)).toEqual(['id', 'name', 'price', 'note']);
    await sql`alter table items add column stock integer not null default 3`.execute(db);
    expect(await all()).toEqual({ id: 'a', name: 'Água', price: 10, note: null, stock: 3 });
  });

  it('stays within its bound and keeps answering after evictions', async () => {
    for (let round = 0; round < 2; round++) {
      for (const column of ['id', 'name', 'price', 'note', 'id, name']) {
        const { rows } = await sql.raw(`select ${column} from items where id = 'a'`).execute(db);
        expect(rows).toHaveLength(1);
      }
    }
  });
});
