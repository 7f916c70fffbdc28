import type { Kysely } from 'kysely';

/**
 * The store's receiving account at its PSP (agência, conta, tipo de conta), which every Pix
 * Automático cycle charge names as `recebedor`. Nullable: existing settings have none until an
 * operator sets it, and live subscriptions are refused until then.
 */
const COLUMNS = ['account_branch', 'account_number', 'account_type'];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of COLUMNS) {
    await db.schema.alterTable('pix_providers').addColumn(column, 'text').execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of [...COLUMNS].reverse()) {
    await db.schema.alterTable('pix_providers').dropColumn(column).execute();
  }
}
