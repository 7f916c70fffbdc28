import type { Kysely } from 'kysely';

/**
 * The merchant dashboard's accounts: people (`users`, one e-mail each whatever its case), what they
 * may do in which store (`memberships`), their signed-in browsers (`dashboard_sessions`, only the
 * SHA-256 of each cookie is kept), invite links (only their hash) and the owners' audit log; and an
 * index for Início's sums of sales.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    // The e-mail lower-cased: uniqueness ignores case, held by the database.
    .addColumn('email_key', 'text', (c) => c.notNull().unique())
    // Null until the person sets one through an invite link.
    .addColumn('password_hash', 'text')
    // TOTP secret sealed with the service's secret box; null: two-step verification off.
    .addColumn('totp_secret_sealed', 'text')
    // The last 30-second step a code was accepted for: a code is good once.
    .addColumn('totp_last_step', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('memberships')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['user_id', 'store_id'])
    .execute();
  await db.schema
    .createIndex('memberships_store')
    .on('memberships')
    .columns(['store_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('dashboard_sessions')
    // SHA-256 of the 256-bit cookie value.
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    // The store the person is looking at.
    .addColumn('store_id', 'text', (c) => c.notNull())
    // `verify`: the password was right, the TOTP code is still due; `active`: signed in.
    .addColumn('stage', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dashboard_sessions_user').on('dashboard_sessions').column('user_id').execute();

  await db.schema
    .createTable('invites')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('invites_user').on('invites').column('user_id').execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    // Null when nobody signed in did it (a failed login names the account tried in `detail`).
    .addColumn('user_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('audit_log_store_listing')
    .on('audit_log')
    .columns(['store_id', 'created_at', 'id'])
    .execute();

  // Início sums a period's approved sales by hour: this index alone answers it (no row is read).
  await db.schema
    .createIndex('sales_period_figures')
    .on('sales')
    .columns(['store_id', 'livemode', 'status', 'created_at', 'amount_cents'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('sales_period_figures').execute();
  await db.schema.dropTable('audit_log').execute();
  await db.schema.dropTable('invites').execute();
  await db.schema.dropTable('dashboard_sessions').execute();
  await db.schema.dropTable('memberships').execute();
  await db.schema.dropTable('users').execute();
}
