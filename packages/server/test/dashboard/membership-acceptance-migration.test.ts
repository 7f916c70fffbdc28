import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/platform/db/migrations/migrate.js';
import { migrations } from '../../src/platform/db/migrations/index.js';
import { POSTGRES_URL, createTestDatabase } from '../support/test-databases.js';

type Row = Record<string, unknown>;
const at = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;

describe.each(POSTGRES_URL ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const))(
  'migration 0024 on a database with people (%s)',
  (dialect) => {
    it('accepts the memberships of accounts with a password; the others stay invites, and of several open links only the oldest sets the password', async () => {
      const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0024'));
      const database = await createTestDatabase(dialect, before);
      try {
        const raw = database.db.kysely as unknown as Kysely<
          Record<'stores' | 'users' | 'memberships' | 'invites', Row>
        >;
        await raw
          .insertInto('stores')
          .values(
            ['a', 'b'].map((id) => ({ id, name: id, handle: id, checkout_mode: 'test', created_at: at(0) })),
          )
          .execute();
        const user = (id: string, password_hash: string | null) => ({
          id,
          email: `${id}@x.example`,
          email_key: `${id}@x.example`,
          password_hash,
          totp_secret_sealed: null,
          totp_last_step: null,
          created_at: at(0),
        });
        await raw
          .insertInto('users')
          .values([user('ana', 'scrypt$x'), user('bia', null)])
          .execute();
        const member = (user_id: string, store_id: string, minute: number) => ({
          user_id,
          store_id,
          role: 'owner',
          created_at: at(minute),
        });
        await raw
          .insertInto('memberships')
          .values([member('ana', 'a', 1), member('bia', 'b', 2), member('bia', 'a', 3)])
          .execute();
        const invite = (token_hash: string, store_id: string, minute: number) => ({
          token_hash,
          user_id: 'bia',
          store_id,
          created_at: at(minute),
          expires_at: at(59),
          used_at: null,
        });
        await raw
          .insertInto('invites')
          .values([invite('first', 'b', 2), invite('later', 'a', 3)])
          .execute();

        await migrateToLatest(database.db.kysely);
        const memberships = await database.db.kysely
          .selectFrom('memberships')
          .select(['user_id', 'store_id', 'accepted_at'])
          .orderBy('created_at')
          .execute();
        expect(memberships).toEqual([
          { user_id: 'ana', store_id: 'a', accepted_at: at(1) },
          { user_id: 'bia', store_id: 'b', accepted_at: null },
          { user_id: 'bia', store_id: 'a', accepted_at: null },
        ]);
        const invites = await database.db.kysely
          .selectFrom('invites')
          .select(['token_hash', 'sets_password'])
          .orderBy('created_at')
          .execute();
        expect(invites.map((row) => [row.token_hash, Number(row.sets_password)])).toEqual([
          ['first', 1],
          ['later', 0],
        ]);
      } finally {
        await database.drop();
      }
    });
  },
);
