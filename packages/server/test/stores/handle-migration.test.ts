import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator } from 'kysely';
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrations/migrate.js';
import { migrations } from '../../src/platform/db/migrations/index.js';

describe('migration 0012 on a database with stores (SQLite)', () => {
  it('gives every existing store a unique handle from its name, in creation order, and test checkout mode', async () => {
    const db = openDatabase(`sqlite:${join(mkdtempSync(join(tmpdir(), 'sf-handles-')), 'old.sqlite')}`);
    try {
      const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0012'));
      const old = new Migrator({
        db: db.kysely as Kysely<unknown>,
        provider: { getMigrations: async () => before },
      });
      expect((await old.migrateToLatest()).error).toBeUndefined();
      const raw = db.kysely as unknown as Kysely<{
        stores: { id: string; name: string; created_at: string };
      }>;
      await raw
        .insertInto('stores')
        .values([
          { id: 's1', name: 'Café do Zé', created_at: '2026-01-01T00:00:00.000Z' },
          { id: 's2', name: 'Cafe do ZE', created_at: '2026-01-02T00:00:00.000Z' },
          { id: 's3', name: '🙂', created_at: '2026-01-03T00:00:00.000Z' },
        ])
        .execute();

      await migrateToLatest(db.kysely);
      const stores = await db.kysely
        .selectFrom('stores')
        .select(['id', 'handle', 'checkout_mode'])
        .orderBy('id')
        .execute();
      expect(stores).toEqual([
        { id: 's1', handle: 'cafe-do-ze', checkout_mode: 'test' },
        { id: 's2', handle: 'cafe-do-ze-2', checkout_mode: 'test' },
        { id: 's3', handle: 'loja', checkout_mode: 'test' },
      ]);
    } finally {
      await db.close();
    }
  });
});
