import type { Kysely } from 'kysely';
import { fromBool } from '../../platform/db/schema.js';
import type { Database } from '../../platform/db/schema.js';
import type { CardPaymentStatus } from '../kernel/card-outcome.js';
import type { CardPaymentsTable, CardProviderColumn } from './card-payment-object.js';

/** Every query is scoped by store and mode: a test key never sees a live payment, and the reverse. */
export interface CardScope {
  storeId: string;
  livemode: boolean;
}

function scoped(db: Kysely<Database>, scope: CardScope) {
  return db
    .selectFrom('card_payments')
    .selectAll()
    .where('store_id', '=', scope.storeId)
    .where('livemode', '=', fromBool(scope.livemode));
}

export function findCardPayment(db: Kysely<Database>, scope: CardScope, id: string) {
  return scoped(db, scope).where('id', '=', id).executeTakeFirst();
}

export function findCardPaymentByExternalId(db: Kysely<Database>, scope: CardScope, externalId: string) {
  return scoped(db, scope).where('external_id', '=', externalId).executeTakeFirst();
}

/** The payment a PSP notification names, within the store and mode whose callback token it came to. */
export function findCardPaymentAtProvider(
  db: Kysely<Database>,
  scope: CardScope,
  provider: CardProviderColumn,
  providerPaymentId: string,
) {
  return scoped(db, scope)
    .where('provider', '=', provider)
    .where('provider_payment_id', '=', providerPaymentId)
    .executeTakeFirst();
}

/** The payment whose 3-D Secure page has this token (its SHA-256); any store: the token is the key. */
export function findCardPaymentByActionToken(db: Kysely<Database>, tokenHash: string) {
  return db
    .selectFrom('card_payments')
    .selectAll()
    .where('action_token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** The newest payment of a purchase-page order (a declined one may be followed by another). */
export function findLatestCardPaymentOfOrder(db: Kysely<Database>, storeId: string, orderId: string) {
  return db
    .selectFrom('card_payments')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('order_id', '=', orderId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

export function listCardPaymentsQuery(
  db: Kysely<Database>,
  scope: CardScope,
  filters: { status?: CardPaymentStatus | undefined; externalId?: string | undefined },
) {
  let query = scoped(db, scope);
  if (filters.status !== undefined) query = query.where('status', '=', filters.status);
  if (filters.externalId !== undefined) query = query.where('external_id', '=', filters.externalId);
  return query;
}

export async function insertCardPayment(db: Kysely<Database>, row: CardPaymentsTable): Promise<void> {
  await db.insertInto('card_payments').values(row).execute();
}

/**
 * Moves a payment on from the status it was read in, and only from it: two deliveries of the same
 * outcome (a notification and the reconciler) race here, and the loser changes nothing. True when
 * this call made the change.
 */
export async function updateCardPaymentFrom(
  db: Kysely<Database>,
  row: Pick<CardPaymentsTable, 'id' | 'status'>,
  changes: Partial<CardPaymentsTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('card_payments')
    .set(changes)
    .where('id', '=', row.id)
    .where('status', '=', row.status)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
