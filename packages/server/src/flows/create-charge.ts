import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../platform/db/database.js';
import { fromBool } from '../platform/db/schema.js';
import type { Database } from '../platform/db/schema.js';
import { recordEvent } from '../platform/outbox/outbox.js';
import type { StorefrontEvent } from '../platform/outbox/outbox.js';
import type { KeepAnswer } from '../platform/http/idempotency.js';
import { Money } from '../platform/http/schemas.js';
import { countPixCharge } from '../platform/metrics/metrics.js';
import { invalidRequest } from '../platform/http/api-error.js';
import { findProduct } from '../domain/catalogue/products-repository.js';
import { findStore } from '../domain/stores/stores.js';
import type { StoresTable } from '../domain/stores/stores.js';
import type { ProductsTable } from '../domain/catalogue/product-object.js';
import { prefixedId } from '../platform/values/ids.js';
import { toCents } from '../platform/values/money.js';
import { isoAfter, nowIso } from '../platform/values/time.js';
import { renderQrPng } from '../platform/brcode/index.js';
import { Customer, normalizeCustomer } from '../domain/kernel/customer.js';
import { Metadata } from '../domain/kernel/metadata.js';
import { TrackingSchema, cleanTracking } from '../domain/kernel/tracking.js';
import type { Tracking } from '../domain/kernel/tracking.js';
import { toPixCharge } from '../domain/pix/pix-charge-object.js';
import type { PixCharge, PixChargesTable } from '../domain/pix/pix-charge-object.js';
import type { Cob } from '../domain/payments/pix-provider.js';
import { findChargeByExternalId, insertCharge } from '../domain/pix/pix-charges-repository.js';
import type { ChargeScope } from '../domain/pix/pix-charges-repository.js';
import { pixReceiverFor } from '../domain/pix/pix-settings.js';
import type { PaymentProviders } from '../domain/payments/payment-providers.js';
import { ProviderError } from '../domain/payments/provider-errors.js';
import { firstCheckAt } from '../domain/pix/live/reconcile-schedule.js';

export const EXTERNAL_ID_PATTERN = '^[A-Za-z0-9._:-]{1,100}$';

export const CreatePixChargeBody = Type.Object(
  {
    amount: Money({
      minimum: 0.01,
      maximum: 1_000_000,
      description: 'BRL, 0.01 to 1,000,000, at most 2 decimals.',
      example: 22.5,
    }),
    description: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 140,
        description:
          "1-140 characters, yours to show. It is not carried in the BR Code (`copy_paste` and the QR carry only the receiver, amount, merchant name and city and a reference), so a bank app reading the code does not show it; a live charge passes it to the PSP as the payer request (`solicitacaoPagador`), which some bank apps display. Show it on your own page, receipt or e-mail; it is in the charge, its events and the sale's charge.",
      }),
    ),
    external_id: Type.Optional(
      Type.String({
        pattern: EXTERNAL_ID_PATTERN,
        'x-pattern-message': 'must be 1 to 100 letters, digits, `.`, `_`, `:` or `-`',
        description:
          'Your own id, unique per store and mode: 1-100 letters, digits, `.`, `_`, `:` or `-` (it appears in a URL path). Reusing one answers 200 with the existing charge, unchanged; when the amount (or description, customer, metadata) you sent differs from it, the `External-Id-Mismatch` header names those fields.',
        example: 'order-1001',
      }),
    ),
    expires_in: Type.Optional(
      Type.Integer({ minimum: 60, maximum: 604_800, default: 3600, description: 'Seconds, 60 to 604800.' }),
    ),
    customer: Type.Optional(Customer),
    metadata: Type.Optional(Metadata),
    product_id: Type.Optional(
      Type.String({
        format: 'uuid',
        description:
          'An active product of the store that this charge sells: its sale carries `product_id`, and the delivery e-mail uses the product’s subject, body and access link.',
      }),
    ),
    tracking: Type.Optional(TrackingSchema),
  },
  { additionalProperties: false },
);

export type CreatePixChargeBody = Static<typeof CreatePixChargeBody>;

export interface CreatedCharge {
  charge: PixCharge;
  /** False when the external_id was already used: the existing charge is answered, nothing created. */
  created: boolean;
  /**
   * When the external_id was already used: the fields sent that differ from the existing charge
   * (`amount`, `description`, `customer`, `metadata`, `product_id`, `tracking`), so the caller can tell a retry from a clash.
   */
  mismatch: string[];
}

/** Sent fields that differ from what the existing charge holds; fields not sent are not compared. */
function mismatchOf(row: PixChargesTable, body: CreatePixChargeBody, customer: Customer | null): string[] {
  const fields: string[] = [];
  if (toCents(body.amount) !== row.amount_cents) fields.push('amount');
  if (body.description !== undefined && body.description !== row.description) fields.push('description');
  if (customer !== null && JSON.stringify(customer) !== row.customer) fields.push('customer');
  if (body.metadata !== undefined && JSON.stringify(body.metadata) !== row.metadata) fields.push('metadata');
  if (body.product_id !== undefined && body.product_id !== (row.product_id ?? null))
    fields.push('product_id');
  if (body.tracking !== undefined && JSON.stringify(cleanTracking(body.tracking)) !== (row.tracking ?? '{}'))
    fields.push('tracking');
  return fields;
}

export interface CreateChargeOptions {
  /** The request's Idempotency-Key: a retry of the same request then asks the PSP for the same cob. */
  idempotencyKey?: string | undefined;
  /** When pending live charges are next checked at the PSP (STOREFRONT_PIX_RECONCILE_SCHEDULE). */
  reconcileScheduleMs?: readonly number[];
  /** Stores the API's answer in the charge's transaction (an Idempotency-Key), see `sendCreation`. */
  keep?: KeepAnswer | undefined;
  /** The store (and the product sold), when the caller has just read them: not read again. */
  store?: StoresTable | undefined;
  product?: ProductsTable | undefined;
  /** Writes what the caller's change adds to the new charge, in the charge's own transaction. */
  withCharge?: ((trx: Kysely<Database>, charge: PixCharge) => Promise<unknown>) | undefined;
}

/** A digest of (store, mode, key, body): the same retried request, and only it, gets the same txid. */
export function retryKeyOf(
  scope: ChargeScope,
  idempotencyKey: string | undefined,
  body: unknown,
): string | null {
  if (idempotencyKey === undefined) return null;
  return createHash('sha256')
    .update(JSON.stringify([scope.storeId, scope.livemode, idempotencyKey, body]))
    .digest('hex');
}

/**
 * Creates a charge through the mode's provider, renders its QR once, and stores it with its
 * `pix.created` event, only once the provider accepted it (a PSP failure writes nothing). A reused
 * external_id is settled by the unique index: the losing insert of a concurrent pair reads and
 * answers the winner's charge.
 */
export async function createCharge(
  db: Kysely<Database>,
  payments: PaymentProviders,
  scope: ChargeScope,
  body: CreatePixChargeBody,
  options: CreateChargeOptions = {},
): Promise<CreatedCharge> {
  const customer = body.customer === undefined ? null : normalizeCustomer(body.customer);
  const provider = await payments.pix(scope);
  const externalId = body.external_id ?? null;
  // A cheap early answer for a plain retry, sparing the provider call; the index decides races.
  const existing = externalId === null ? undefined : await findChargeByExternalId(db, scope, externalId);
  if (existing)
    return { charge: toPixCharge(existing), created: false, mismatch: mismatchOf(existing, body, customer) };

  if (body.product_id !== undefined) {
    const product =
      options.product?.id === body.product_id && options.product.store_id === scope.storeId
        ? options.product
        : await findProduct(db, scope.storeId, body.product_id);
    checkSellable(product, body.product_id);
  }
  const store = options.store ?? (await findStore(db, scope.storeId));
  if (!store) throw new Error(`store ${scope.storeId} of an authenticated key is missing`);
  const id = prefixedId('pix');
  const amountCents = toCents(body.amount);
  const expiresIn = body.expires_in ?? 3600;
  const txid = provider.txidFor(id, retryKeyOf(scope, options.idempotencyKey, body));
  const cob = await provider
    .createCharge({
      txid,
      amountCents,
      expiresIn,
      description: body.description ?? null,
      receiver: pixReceiverFor(store, scope.livemode),
      customer,
    })
    .catch((error: unknown) => {
      if (error instanceof ProviderError) Object.assign(error.attempt, { chargeId: id, txid });
      throw error;
    });
  const row = await newChargeRow(scope, id, cob, {
    amountCents,
    expiresIn,
    description: body.description ?? null,
    externalId,
    customer,
    metadata: body.metadata ?? null,
    productId: body.product_id ?? null,
    tracking: cleanTracking(body.tracking),
    reconcileScheduleMs: options.reconcileScheduleMs,
  });
  try {
    const charge = await db.transaction().execute(async (trx) => {
      const object = toPixCharge(row, nowIso());
      // The API's answer first (an Idempotency-Key): a concurrent duplicate in another process then
      // waits on the key and replays, rather than tripping on the txid it shares (live) or the external_id.
      await options.keep?.(trx, object);
      await insertChargeWithEvent(trx, row, object);
      await options.withCharge?.(trx, object);
      return object;
    });
    countPixCharge('created', scope.livemode);
    return { charge, created: true, mismatch: [] };
  } catch (error) {
    if (externalId === null || !isUniqueViolation(error)) throw error;
    const winner = await findChargeByExternalId(db, scope, externalId);
    if (!winner) throw error;
    return { charge: toPixCharge(winner), created: false, mismatch: mismatchOf(winner, body, customer) };
  }
}

/** What a new charge holds besides what the provider answered. */
export interface NewChargeFields {
  amountCents: number;
  expiresIn: number;
  description: string | null;
  externalId: string | null;
  customer: Customer | null;
  metadata: Metadata | null;
  productId: string | null;
  /** The campaign parameters it came with (`{}` when none). */
  tracking: Tracking;
  reconcileScheduleMs?: readonly number[] | undefined;
}

/** The row of a charge the provider accepted, with its QR rendered once from the provider's code. */
export async function newChargeRow(
  scope: ChargeScope,
  id: string,
  cob: Pick<Cob, 'txid' | 'copyPaste'>,
  fields: NewChargeFields,
): Promise<PixChargesTable> {
  const qr = await renderQrPng(cob.copyPaste);
  const now = new Date();
  return {
    id,
    store_id: scope.storeId,
    livemode: fromBool(scope.livemode),
    status: 'pending',
    amount_cents: fields.amountCents,
    description: fields.description,
    external_id: fields.externalId,
    customer: fields.customer === null ? null : JSON.stringify(fields.customer),
    metadata: fields.metadata === null ? null : JSON.stringify(fields.metadata),
    txid: cob.txid,
    copy_paste: cob.copyPaste,
    qr_code_base64: qr.base64,
    expires_at: isoAfter(fields.expiresIn * 1000, now),
    paid_at: null,
    created_at: now.toISOString(),
    product_id: fields.productId,
    tracking: JSON.stringify(fields.tracking),
    // Live charges are asked about at the PSP on a schedule, so a lost callback is never a lost payment.
    next_check_at: scope.livemode ? firstCheckAt(now, fields.reconcileScheduleMs) : null,
    canceled_at: null,
  };
}

/** Inserts a new charge with its `pix.created` event, in the caller's transaction. */
export async function insertChargeWithEvent(
  trx: Kysely<Database>,
  row: PixChargesTable,
  object: PixCharge,
): Promise<StorefrontEvent> {
  await insertCharge(trx, row);
  return recordEvent(trx, {
    storeId: row.store_id,
    livemode: row.livemode === 1,
    type: 'pix.created',
    object,
  });
}

/** A charge can sell an active product of the caller's store; an archived one is a mistake to catch. */
function checkSellable(product: ProductsTable | undefined, productId: string): void {
  if (!product) throw invalidRequest(`No such product: '${productId}'.`, 'product_id');
  if (product.ativo !== 1)
    throw invalidRequest(`Product '${productId}' is archived and cannot be sold.`, 'product_id');
}
