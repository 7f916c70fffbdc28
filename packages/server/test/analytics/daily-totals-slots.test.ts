import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { expect, it } from 'vitest';
import { ALL_PRODUCTS, addToDailyTotals } from '../../src/domain/analytics/daily-totals.js';
import type { DailyIncrement } from '../../src/domain/analytics/daily-totals.js';
import { foldDailySlots, foldableBefore } from '../../src/domain/analytics/fold-slots.js';
import * as dailyTotalsSlots from '../../src/platform/db/migrations/0033-daily-totals-slots.js';
import { COUNTER_SLOTS } from '../../src/platform/db/row-locks.js';
import type { Database } from '../../src/platform/db/schema.js';
import { describeEachDatabase } from '../support/test-api.js';

/** A past day: a week ago, before any day folding leaves alone. */
const DAY = new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10);

/** A connection of the pool held until `release`, as a request's transaction holds one. */
function reserve(db: Kysely<Database>): Promise<{ conn: Kysely<Database>; release: () => void }> {
  return new Promise((resolve, reject) => {
    let release!: () => void;
    const held = new Promise<void>((done) => (release = done));
    db.connection()
      .execute(async (conn) => {
        resolve({ conn, release });
        await held;
      })
      .catch(reject);
  });
}

const backendSlot = async (conn: Kysely<Database>) =>
  Number((await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(conn)).rows[0]!.pid) %
  COUNTER_SLOTS;

describeEachDatabase('daily totals in slots', (api) => {
  const sale = (storeId: string, cents: number, productId = 'produto-1'): DailyIncrement => ({
    store_id: storeId,
    livemode: 0,
    day: DAY,
    product_id: productId,
    add: { sales: 1, gross_cents: cents },
  });
  const summary = async (key: string) =>
    (await api.as(key).get(`/analytics/summary?from=${DAY}&to=${DAY}`)).body;
  const rowsOf = (storeId: string) =>
    api.db
      .selectFrom('analytics_daily')
      .select(['product_id', 'slot', 'sales', 'gross_cents'])
      .where('store_id', '=', storeId)
      .orderBy('product_id')
      .orderBy('slot')
      .execute();

  it.runIf(api.dialect === 'postgres')(
    'two purchases of one store on two connections add to the same day without waiting for each other',
    async () => {
      const { key, storeId } = await api.createStore();
      const product = (await api.as(key).post('/products', { nome: 'Curso', preco: 10 })).body;
      const first = await reserve(api.db);
      const held = [first];
      try {
        // A second connection whose backend writes to another slot (a fresh pool's pids follow each other).
        let second = await reserve(api.db);
        held.push(second);
        while ((await backendSlot(second.conn)) === (await backendSlot(first.conn))) {
          second = await reserve(api.db);
          held.push(second);
        }
        let added!: () => void;
        const firstAdded = new Promise<void>((done) => (added = done));
        let letCommit!: () => void;
        const mayCommit = new Promise<void>((done) => (letCommit = done));
        const firstTransaction = first.conn.transaction().execute(async (trx) => {
          await addToDailyTotals(trx, [sale(storeId, 1000, product.id)]);
          added();
          await mayCommit; // its rows' locks held, as a purchase holds them until its commit
        });
        await firstAdded;
        // With one row per day the second would wait for the first's commit: here it would time out.
        await second.conn.transaction().execute(async (trx) => {
          await sql`set local lock_timeout = '2s'`.execute(trx);
          await addToDailyTotals(trx, [sale(storeId, 2500, product.id)]);
        });
        letCommit();
        await firstTransaction;
      } finally {
        for (const { release } of held) release();
      }

      const rows = await rowsOf(storeId);
      expect(rows).toHaveLength(4); // the product's and the store's day, in two slots each
      expect(new Set(rows.map((row) => row.slot)).size).toBe(2);
      expect(rows.every((row) => row.slot >= 0 && row.slot < COUNTER_SLOTS)).toBe(true);
      expect(await summary(key)).toMatchObject({ sales: 2, gross_amount: 35 });
      const ofProduct = await api
        .as(key)
        .get(`/analytics/summary?from=${DAY}&to=${DAY}&product_id=${product.id}`);
      expect(ofProduct.body.days).toEqual([
        expect.objectContaining({ date: DAY, sales: 2, gross_amount: 35 }),
      ]);
    },
  );

  it.runIf(api.dialect === 'sqlite')(
    'SQLite, one writer at a time, keeps one row a day in slot 0',
    async () => {
      const { key, storeId } = await api.createStore();
      await api.db.transaction().execute((trx) => addToDailyTotals(trx, [sale(storeId, 1000)]));
      await api.db.transaction().execute((trx) => addToDailyTotals(trx, [sale(storeId, 2500)]));
      expect(await rowsOf(storeId)).toEqual([
        { product_id: ALL_PRODUCTS, slot: 0, sales: 2, gross_cents: 3500 },
        { product_id: 'produto-1', slot: 0, sales: 2, gross_cents: 3500 },
      ]);
      expect(await summary(key)).toMatchObject({ sales: 2, gross_amount: 35 });
    },
  );

  it.runIf(api.dialect === 'postgres')(
    'past days fold back into slot 0, skipping a slot row a writer holds, and the figures stay the same',
    async () => {
      const { key, storeId } = await api.createStore();
      const today = new Date().toISOString().slice(0, 10);
      const cutoff = foldableBefore(Date.now());
      await api.db
        .insertInto('analytics_daily')
        .values([
          ...[0, 3, 7].map((slot) => ({ ...row(storeId, ALL_PRODUCTS), slot })),
          ...[3, 7].map((slot) => ({ ...row(storeId, 'produto-1'), slot })),
          { ...row(storeId, ALL_PRODUCTS), slot: 9 },
          ...[0, 5].map((slot) => ({ ...row(storeId, ALL_PRODUCTS), day: today, slot })),
        ])
        .execute();
      const figures = async () => ({
        old: (await summary(key)) as unknown,
        today: (await api.as(key).get(`/analytics/summary?from=${today}&to=${today}`)).body as unknown,
      });
      const before = await figures();
      expect(before.old).toMatchObject({ sales: 8, gross_amount: 40 });

      // A refund of that old day holds slot 9's row, uncommitted, while the fold runs.
      const writer = await reserve(api.db);
      let letCommit!: () => void;
      const mayCommit = new Promise<void>((done) => (letCommit = done));
      let locked!: () => void;
      const isLocked = new Promise<void>((done) => (locked = done));
      const holding = writer.conn.transaction().execute(async (trx) => {
        await trx
          .updateTable('analytics_daily')
          .set({ refunded_cents: 500 })
          .where('store_id', '=', storeId)
          .where('day', '=', DAY)
          .where('slot', '=', 9)
          .execute();
        locked();
        await mayCommit;
      });
      try {
        await isLocked;
        const folded = await Promise.race([
          foldDailySlots(api.db, cutoff),
          new Promise((_, reject) =>
            setTimeout(() => reject(new Error('the fold waited for a writer')), 3000),
          ),
        ]);
        // Slots 3 and 7 of this store's day and of its product's, and other tests' past slots.
        expect(folded).toBeGreaterThanOrEqual(4);
      } finally {
        letCommit();
        await holding;
        writer.release();
      }
      expect((await rowsOf(storeId)).map((r) => [r.product_id, r.slot, Number(r.sales)])).toEqual([
        [ALL_PRODUCTS, 0, 6],
        [ALL_PRODUCTS, 0, 2],
        [ALL_PRODUCTS, 5, 2],
        [ALL_PRODUCTS, 9, 2],
        ['produto-1', 0, 4],
      ]);
      expect(await figures()).toEqual({
        old: { ...(before.old as object), refunded_amount: 5, net_amount: 35, days: expect.any(Array) },
        today: before.today,
      });

      expect(await foldDailySlots(api.db, cutoff)).toBeGreaterThanOrEqual(1);
      const old = await api.db
        .selectFrom('analytics_daily')
        .select(['product_id', 'slot', 'sales', 'refunded_cents'])
        .where('store_id', '=', storeId)
        .where('day', '=', DAY)
        .orderBy('product_id')
        .execute();
      expect(old.map((r) => [r.product_id, r.slot, Number(r.sales), Number(r.refunded_cents)])).toEqual([
        [ALL_PRODUCTS, 0, 8, 500],
        ['produto-1', 0, 4, 0],
      ]);
      expect(await summary(key)).toMatchObject({ sales: 8, gross_amount: 40, refunded_amount: 5 });
    },
  );

  it.runIf(api.dialect === 'sqlite')('SQLite has only slot 0: folding has nothing to do', async () => {
    const { storeId } = await api.createStore();
    await api.db.insertInto('analytics_daily').values(row(storeId, ALL_PRODUCTS)).execute();
    expect(await foldDailySlots(api.db, foldableBefore(Date.now()))).toBe(0);
  });

  it('migration 0033 keeps every day as slot 0, and going down sums the slots of each day', async () => {
    const { key, storeId } = await api.createStore();
    await api.db
      .insertInto('analytics_daily')
      .values([
        { ...row(storeId, ALL_PRODUCTS), slot: 0 },
        { ...row(storeId, ALL_PRODUCTS), slot: 7 },
        { ...row(storeId, 'produto-1'), slot: 3 },
      ])
      .execute();
    const raw = api.db as never;
    await dailyTotalsSlots.down(raw);
    const whole = await api.db
      .selectFrom('analytics_daily')
      .selectAll()
      .where('store_id', '=', storeId)
      .orderBy('product_id')
      .execute();
    expect(whole.map((r) => [r.product_id, Number(r.sales), Number(r.gross_cents), 'slot' in r])).toEqual([
      [ALL_PRODUCTS, 4, 2000, false],
      ['produto-1', 2, 1000, false],
    ]);

    await dailyTotalsSlots.up(raw);
    const rows = await rowsOf(storeId);
    expect(rows.map((r) => [r.product_id, r.slot, Number(r.sales), Number(r.gross_cents)])).toEqual([
      [ALL_PRODUCTS, 0, 4, 2000],
      ['produto-1', 0, 2, 1000],
    ]);
    expect(await summary(key)).toMatchObject({ sales: 4, gross_amount: 20 });
    // The key has the slot in it: a second slot of the same day is a row of its own.
    await api.db
      .insertInto('analytics_daily')
      .values({ ...row(storeId, ALL_PRODUCTS), slot: 1 })
      .execute();
    await expect(
      api.db
        .insertInto('analytics_daily')
        .values({ ...row(storeId, ALL_PRODUCTS), slot: 1 })
        .execute(),
    ).rejects.toThrow();
    expect(await summary(key)).toMatchObject({ sales: 6, gross_amount: 30 });
  });
});

function row(storeId: string, productId: string) {
  return {
    store_id: storeId,
    livemode: 0 as const,
    day: DAY,
    product_id: productId,
    page_views: 0,
    orders: 0,
    paid_orders: 0,
    sales: 2,
    gross_cents: 1000,
    refunded_cents: 0,
    pix_sales: 2,
    pix_gross_cents: 1000,
    card_sales: 0,
    card_gross_cents: 0,
  };
}
