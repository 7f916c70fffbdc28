import type { Kysely } from 'kysely';
import { isUuid } from '../../platform/values/ids.js';
import type { Database } from '../../platform/db/schema.js';
import { recordEvent } from '../../platform/outbox/outbox.js';
import { invalidRequest, notFound } from '../../platform/http/api-error.js';
import type { WriteContext } from '../kernel/write-context.js';
import { toCheckout } from './checkout-object.js';
import type { Checkout, CheckoutsTable } from './checkout-object.js';
import type { CreateCheckoutBody, UpdateCheckoutBody } from './checkout-schemas.js';
import {
  findCheckout,
  findDefaultCheckout,
  insertCheckout,
  markArchived,
  updateCheckout,
} from './checkouts-repository.js';
import type { CheckoutSettings } from './settings.js';

/*
 * The rules of changing a checkout, for the API's routes and the dashboard's editor alike. Each runs in
 * the caller's transaction, with the change's event (and a linked product's) committed together.
 */

export const settingsOf = (row: CheckoutsTable): CheckoutSettings =>
  JSON.parse(row.settings_json) as CheckoutSettings;

/** A checkout of the store; anything else (another store's, a malformed id) is 404. */
export async function checkoutOr404(
  db: Kysely<Database>,
  storeId: string,
  id: string,
): Promise<CheckoutsTable> {
  const row = isUuid(id) ? await findCheckout(db, storeId, id) : undefined;
  if (!row) throw notFound('checkout', id);
  return row;
}

/**
 * A new checkout: omitted settings are the default checkout's current ones; `checkout.created`. The
 * product it may be made for is linked by the flow that calls this (flows/create-checkout.ts).
 */
export async function addCheckout(
  trx: Kysely<Database>,
  ctx: WriteContext,
  body: CreateCheckoutBody,
): Promise<Checkout> {
  const base = await findDefaultCheckout(trx, ctx.storeId);
  const row = await insertCheckout(trx, {
    storeId: ctx.storeId,
    name: body.name,
    settings: { ...settingsOf(base), ...body.settings_json },
    isDefault: false,
  });
  const object = toCheckout(row);
  await recordEvent(trx, { storeId: ctx.storeId, type: 'checkout.created', livemode: ctx.livemode, object });
  return object;
}

/** A new name and the settings sent (the rest kept); `checkout.updated`. The default checkout too. */
export async function changeCheckout(
  trx: Kysely<Database>,
  ctx: WriteContext,
  row: CheckoutsTable,
  body: UpdateCheckoutBody,
): Promise<Checkout> {
  const settings = { ...settingsOf(row), ...body.settings_json };
  const updated = await updateCheckout(trx, row, { name: body.name ?? row.name, settings });
  const object = toCheckout(updated);
  await recordEvent(trx, { storeId: ctx.storeId, type: 'checkout.updated', livemode: ctx.livemode, object });
  return object;
}

/**
 * Archives (idempotent: an archived one answers as it is, with no second event; `changed` says
 * whether this call archived it, so its products are unlinked once). The default checkout cannot be
 * archived (400).
 */
export async function setCheckoutArchived(
  trx: Kysely<Database>,
  ctx: WriteContext,
  row: CheckoutsTable,
): Promise<{ checkout: Checkout; changed: boolean }> {
  if (row.is_default === 1) throw invalidRequest('The default checkout cannot be archived.');
  const archived = await markArchived(trx, row);
  // Already archived (now or by a concurrent request): same answer, no second event.
  if (!archived) return { checkout: toCheckout({ ...row, archived: 1 }), changed: false };
  const checkout = toCheckout(archived);
  await recordEvent(trx, {
    storeId: ctx.storeId,
    type: 'checkout.archived',
    livemode: ctx.livemode,
    object: checkout,
  });
  return { checkout, changed: true };
}

/** Makes an archived checkout usable again (idempotent); `checkout.updated` when it changed. */
export async function unarchiveCheckout(
  trx: Kysely<Database>,
  ctx: WriteContext,
  row: CheckoutsTable,
): Promise<Checkout> {
  const restored = await markArchived(trx, row, 0);
  // Not archived (now or by a concurrent request): same answer, no event.
  if (!restored) return toCheckout({ ...row, archived: 0 });
  const object = toCheckout(restored);
  await recordEvent(trx, { storeId: ctx.storeId, type: 'checkout.updated', livemode: ctx.livemode, object });
  return object;
}
