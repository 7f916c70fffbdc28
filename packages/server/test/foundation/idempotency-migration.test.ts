import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/platform/db/migrations/migrate.js';
import { migrations } from '../../src/platform/db/migrations/index.js';
import { POSTGRES_URL, createTestDatabase } from '../support/test-databases.js';

const BEFORE_MODES = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0013'));

interface OldTables {
  stores: { id: string; name: string; created_at: string };
  idempotency_keys: {
    store_id: string;
    key: string;
    fingerprint: string;
    state: 'in_progress' | 'done';
    response_status: number | null;
    response_body: string | null;
    created_at: string;
    expires_at: string;
  };
}

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe.skipIf(dialect === 'postgres' && !POSTGRES_URL)(`migration 0013 on kept keys [${dialect}]`, () => {
    it('keeps every key, as mode unknown, with its answer, and keys are then unique per (store, mode, key)', async () => {
      const database = await createTestDatabase(dialect, BEFORE_MODES);
      try {
        const old = database.db.kysely as unknown as Kysely<OldTables>;
        await old
          .insertInto('stores')
          .values({ id: 's1', name: 'Loja', created_at: '2026-01-01T00:00:00.000Z' })
          .execute();
        const kept = {
          store_id: 's1',
          key: 'k-1',
          fingerprint: 'f',
          state: 'done' as const,
          response_status: 201,
          response_body: 'v1.sealed',
          created_at: '2026-01-01T00:00:00.000Z',
          expires_at: '2026-01-02T00:00:00.000Z',
        };
        await old.insertInto('idempotency_keys').values(kept).execute();

        await migrateToLatest(database.db.kysely);
        const db = database.db.kysely;
        expect(await db.selectFrom('idempotency_keys').selectAll().execute()).toEqual([
          { ...kept, mode: 'unknown' },
        ]);
        const row = (mode: 'test' | 'live') => ({ ...kept, mode, response_body: null });
        await db
          .insertInto('idempotency_keys')
          .values([row('test'), row('live')])
          .execute();
        await expect(db.insertInto('idempotency_keys').values(row('live')).execute()).rejects.toThrow();
        expect(await db.selectFrom('idempotency_keys').select('mode').orderBy('mode').execute()).toEqual([
          { mode: 'live' },
          { mode: 'test' },
          { mode: 'unknown' },
        ]);
      } finally {
        await database.drop();
      }
    });
  });
}
