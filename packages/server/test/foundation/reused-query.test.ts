import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reusedInsert, reusedListQuery, reusedQuery } from '../../src/platform/db/reused-query.js';
import { POSTGRES_URL, createTestDatabase } from '../support/test-databases.js';
import type { TestDatabase } from '../support/test-databases.js';

interface Item {
  id: string;
  name: string;
  price: number;
  note: string | null;
}
interface Tables {
  reuse_items: Item;
}

const byId = reusedQuery('item by id', (db: Kysely<Tables>, id: string) =>
  db.selectFrom('reuse_items').selectAll().where('id', '=', id),
);
const cheaperThan = reusedQuery('items under', (db: Kysely<Tables>, price: number) =>
  db
    .selectFrom('reuse_items')
    .select(['id'])
    .where('price', '<', price)
    .where('note', 'is', null)
    .orderBy('id'),
);
const insertItem = reusedInsert('insert item', (db: Kysely<Tables>, row: Partial<Item>) =>
  db.insertInto('reuse_items').values(row as Item),
);
const insertOnce = reusedInsert('insert item once', (db: Kysely<Tables>, row: Item) =>
  db
    .insertInto('reuse_items')
    .values(row)
    .onConflict((oc) => oc.column('id').doNothing()),
);

const namedAmong = reusedListQuery(
  'items named among',
  (db: Kysely<Tables>, names: readonly string[], ids: readonly string[]) =>
    db
      .selectFrom('reuse_items')
      .select(['id'])
      .where('name', 'in', names)
      .where('id', 'in', ids)
      .orderBy('id'),
  2,
);

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe.skipIf(dialect === 'postgres' && !POSTGRES_URL)(`reused queries [${dialect}]`, () => {
    let test: TestDatabase;
    let db: Kysely<Tables>;

    beforeAll(async () => {
      test = await createTestDatabase(dialect);
      db = test.db.kysely as unknown as Kysely<Tables>;
      await sql`create table reuse_items (id text primary key, name text not null, price integer not null default 7, note text)`.execute(
        db,
      );
    });
    afterAll(() => test.drop());

    it('runs with each call’s values, as Kysely would', async () => {
      await insertItem(db, { id: 'a', name: 'Água', price: 10, note: null });
      await insertItem(db, { id: 'b', name: 'Pão', price: 3, note: 'x' });
      await insertItem(db, { id: 'c', name: 'Café', price: 5, note: null });
      for (const id of ['a', 'b', 'c', 'zz']) {
        const expected = await db
          .selectFrom('reuse_items')
          .selectAll()
          .where('id', '=', id)
          .executeTakeFirst();
        expect((await byId(db, id)).rows[0]).toEqual(expected);
      }
      // A value of the query's own (`is null`) stays in it; the argument changes.
      expect((await cheaperThan(db, 6)).rows).toEqual([{ id: 'c' }]);
      expect((await cheaperThan(db, 11)).rows).toEqual([{ id: 'a' }, { id: 'c' }]);
    });

    it('leaves out undefined columns (their default applies), one statement per set of columns', async () => {
      await insertItem(db, { id: 'd', name: 'Doce', price: undefined, note: undefined });
      await insertItem(db, { id: 'e', name: 'Erva', price: 2 });
      expect((await byId(db, 'd')).rows[0]).toEqual({ id: 'd', name: 'Doce', price: 7, note: null });
      expect((await byId(db, 'e')).rows[0]).toEqual({ id: 'e', name: 'Erva', price: 2, note: null });
    });

    it('counts affected rows, and works inside a transaction (and its rollback)', async () => {
      const fresh = await insertOnce(db, { id: 'f', name: 'Figo', price: 1, note: null });
      const again = await insertOnce(db, { id: 'f', name: 'Outro', price: 9, note: null });
      expect(fresh.numAffectedRows).toBe(1n);
      expect(again.numAffectedRows).toBe(0n);
      await expect(
        db.transaction().execute(async (trx) => {
          await insertItem(trx, { id: 'g', name: 'Goiaba', price: 4, note: null });
          expect((await byId(trx, 'g')).rows[0]?.name).toBe('Goiaba');
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect((await byId(db, 'g')).rows).toEqual([]);
    });

    it('lists: the rows Kysely finds for every length, at, under and over the lengths kept', async () => {
      const names = ['Água', 'Pão', 'Café', 'Nada'];
      const ids = ['a', 'b', 'c', 'zz'];
      for (let n = 1; n <= names.length; n++) {
        for (let m = 1; m <= ids.length; m++) {
          const [someNames, someIds] = [names.slice(0, n), ids.slice(-m)];
          const expected = await db
            .selectFrom('reuse_items')
            .select(['id'])
            .where('name', 'in', someNames)
            .where('id', 'in', someIds)
            .orderBy('id')
            .execute();
          expect((await namedAmong(db, someNames, someIds)).rows, `${n} names, ${m} ids`).toEqual(expected);
        }
      }
      // The same lengths again, other values: the kept statement binds each call's own.
      expect((await namedAmong(db, ['Pão', 'Água'], ['b', 'zz'])).rows).toEqual([{ id: 'b' }]);
      expect((await namedAmong(db, ['Café', 'Água'], ['a', 'c'])).rows).toEqual([{ id: 'a' }, { id: 'c' }]);
    });

    it('refuses an argument the builder does not pass on as a parameter', async () => {
      const inspecting = reusedQuery('inspects its argument', (d: Kysely<Tables>, cheap: boolean) =>
        d
          .selectFrom('reuse_items')
          .selectAll()
          .where('price', '<', cheap ? 5 : 50),
      );
      await expect(inspecting(db, true)).rejects.toThrow(/argument 0 is not a parameter/);
    });
  });
}
