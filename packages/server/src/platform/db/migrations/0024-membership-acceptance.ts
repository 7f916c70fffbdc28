import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * A membership is accepted by its person: `memberships.accepted_at` is null while it is an invite,
 * and only accepted memberships open the store (sessions, the "Loja" select, roles, the audit of a
 * person's logins). `invites.sets_password` says whether a link may set the account's password: only
 * the link of an account invited nowhere else, so an owner never holds a link that sets the password
 * of someone another store invited.
 *
 * Existing data: a membership whose account has a password was usable, so it is accepted; the others
 * stay invites. Of several open links of one account, only the oldest keeps setting the password.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('memberships').addColumn('accepted_at', 'text').execute();
  await sql`
    UPDATE memberships SET accepted_at = created_at
    WHERE user_id IN (SELECT id FROM users WHERE password_hash IS NOT NULL)
  `.execute(db);
  await db.schema
    .alterTable('invites')
    .addColumn('sets_password', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await sql`
    UPDATE invites SET sets_password = 0
    WHERE EXISTS (
      SELECT 1 FROM invites AS older
      WHERE older.user_id = invites.user_id
        AND older.store_id <> invites.store_id
        AND older.created_at < invites.created_at
    )
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('invites').dropColumn('sets_password').execute();
  await db.schema.alterTable('memberships').dropColumn('accepted_at').execute();
}
