import type { Kysely } from 'kysely';

/**
 * The OAuth2 token request of a store's PSP: scope, where the client credentials go, the body's
 * encoding and extra parameters (names in clear, values sealed: one may be a secret). Existing settings keep what was
 * always sent: HTTP Basic, a form body, no scope.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('pix_providers').addColumn('token_scope', 'text').execute();
  await db.schema
    .alterTable('pix_providers')
    .addColumn('token_auth', 'text', (c) => c.notNull().defaultTo('basic'))
    .execute();
  await db.schema
    .alterTable('pix_providers')
    .addColumn('token_format', 'text', (c) => c.notNull().defaultTo('form'))
    .execute();
  await db.schema
    .alterTable('pix_providers')
    .addColumn('token_params', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['token_params', 'token_format', 'token_auth', 'token_scope']) {
    await db.schema.alterTable('pix_providers').dropColumn(column).execute();
  }
}
