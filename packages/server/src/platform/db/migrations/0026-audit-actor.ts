import type { Kysely } from 'kysely';

/**
 * Who made each audit entry: a signed-in person (`person`, with `user_id`), an API key (`api_key`,
 * with the key's public prefix, never the secret, as `actor_label`) or the operator's CLI (`cli`).
 * Existing entries were all people's.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('audit_log')
    .addColumn('actor_kind', 'text', (col) => col.notNull().defaultTo('person'))
    .execute();
  await db.schema.alterTable('audit_log').addColumn('actor_label', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_log').dropColumn('actor_label').execute();
  await db.schema.alterTable('audit_log').dropColumn('actor_kind').execute();
}
