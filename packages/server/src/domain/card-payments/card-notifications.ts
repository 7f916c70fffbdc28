import type { Kysely } from 'kysely';
import type { Database, DbBool } from '../../platform/db/schema.js';
import type { CardProviderColumn } from './card-payment-object.js';

/**
 * Every PSP notification as it arrived at `/callbacks/card/<token>`, for the operator's audit; its
 * content is only ever a hint (the payment is read back from the PSP before anything changes).
 */
export interface CardNotificationsTable {
  id: string;
  store_id: string;
  livemode: DbBool;
  provider: CardProviderColumn;
  /** The PSP's id of the payment it named, or null when it named none. */
  provider_payment_id: string | null;
  body: string;
  /** Null until processed. */
  outcome: CardNotificationOutcome | null;
  received_at: string;
  processed_at: string | null;
}

/**
 * `processed` (read back and applied), `ignored` (names no payment of ours, or another topic),
 * `forged` (its signature did not verify: answered 401), `failed` (the read-back failed; the
 * reconciler reads the payment again).
 */
export type CardNotificationOutcome = 'processed' | 'ignored' | 'forged' | 'failed';

declare module '../../platform/db/schema.js' {
  interface Tables {
    card_notifications: CardNotificationsTable;
  }
}

export async function insertCardNotification(
  db: Kysely<Database>,
  row: CardNotificationsTable,
): Promise<void> {
  await db.insertInto('card_notifications').values(row).execute();
}

export async function markCardNotification(
  db: Kysely<Database>,
  id: string,
  outcome: CardNotificationOutcome,
  at: string,
): Promise<void> {
  await db
    .updateTable('card_notifications')
    .set({ outcome, processed_at: at })
    .where('id', '=', id)
    .execute();
}
