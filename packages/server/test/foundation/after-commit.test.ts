import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTBOX_WAKE, recordEvent } from '../../src/platform/outbox/outbox.js';
import { onWake } from '../../src/platform/jobs/wake.js';
import { createStore } from '../../src/flows/create-store.js';
import { readOncePer } from '../../src/platform/db/after-commit.js';
import { POSTGRES_URL, createTestDatabase } from '../support/test-databases.js';
import type { TestDatabase } from '../support/test-databases.js';

const dialects = POSTGRES_URL ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

describe.each(dialects)('wakes fired as the writing transaction commits [%s]', (dialect) => {
  let database: TestDatabase;
  let storeId: string;
  const woken: string[] = [];
  let stopListening: () => void;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    storeId = (await createStore(database.db.kysely, { name: 'Wakes' })).id;
    stopListening = onWake((name) => woken.push(name));
  });
  afterAll(async () => {
    stopListening();
    await database.drop();
  });

  const record = (db = database.db.kysely) =>
    recordEvent(db, { storeId, type: 'checkout.created', livemode: false, object: {} });

  it('not before the commit, and once however many events the transaction records', async () => {
    woken.length = 0;
    await database.db.kysely.transaction().execute(async (trx) => {
      await record(trx);
      await record(trx);
      expect(woken).toEqual([]);
    });
    expect(woken).toEqual([OUTBOX_WAKE]);
  });

  it('never after a rollback', async () => {
    woken.length = 0;
    await expect(
      database.db.kysely.transaction().execute(async (trx) => {
        await record(trx);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(woken).toEqual([]);
    // The connection's next transaction starts clean.
    await database.db.kysely.transaction().execute(async (trx) => {
      await trx.selectFrom('events').select('id').execute();
    });
    expect(woken).toEqual([]);
  });

  it('at once outside a transaction: the statement has committed', async () => {
    woken.length = 0;
    await record();
    expect(woken).toEqual([OUTBOX_WAKE]);
  });
});

describe.each(dialects)('reads kept for the rest of their transaction [%s]', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(() => database.drop());

  /** A read that counts its runs and answers which run it was. */
  function counted() {
    let runs = 0;
    return { read: async () => ++runs, runs: () => runs };
  }

  it('once per key in a transaction, again in the next one and after a rollback, every time outside', async () => {
    const a = counted();
    const b = counted();
    const db = database.db.kysely;
    await db.transaction().execute(async (trx) => {
      expect(await readOncePer(trx, 'a', a.read)).toBe(1);
      expect(await readOncePer(trx, 'a', a.read)).toBe(1);
      expect(await readOncePer(trx, 'b', b.read)).toBe(1);
    });
    expect([a.runs(), b.runs()]).toEqual([1, 1]);
    await db.transaction().execute(async (trx) => {
      expect(await readOncePer(trx, 'a', a.read)).toBe(2);
    });
    await expect(
      db.transaction().execute(async (trx) => {
        expect(await readOncePer(trx, 'a', a.read)).toBe(3);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await db.transaction().execute(async (trx) => {
      expect(await readOncePer(trx, 'a', a.read)).toBe(4);
    });
    expect(await readOncePer(db, 'a', a.read)).toBe(5);
    expect(await readOncePer(db, 'a', a.read)).toBe(6);
  });

  it('a read that queries the transaction itself', async () => {
    await database.db.kysely.transaction().execute(async (trx) => {
      const read = () => trx.selectFrom('stores').select('id').execute();
      expect(await readOncePer(trx, 'stores', read)).toBe(await readOncePer(trx, 'stores', read));
    });
  });
});
