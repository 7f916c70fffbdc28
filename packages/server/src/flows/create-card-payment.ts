import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DeliveryMail } from '../domain/accounts/test-mail-policy.js';
import { toCardPayment } from '../domain/card-payments/card-payment-object.js';
import type { CardPayment, CardPaymentsTable } from '../domain/card-payments/card-payment-object.js';
import {
  findCardPaymentByExternalId,
  insertCardPayment,
} from '../domain/card-payments/card-payments-repository.js';
import type { CardScope } from '../domain/card-payments/card-payments-repository.js';
import { nextCardCheckAt } from '../domain/card-payments/check-schedule.js';
import type { Customer } from '../domain/kernel/customer.js';
import type { Metadata } from '../domain/kernel/metadata.js';
import type { Tracking } from '../domain/kernel/tracking.js';
import type { CardChargeRequest, CardOutcome, CardProvider } from '../domain/payments/card-provider.js';
import type { PaymentProviders } from '../domain/payments/payment-providers.js';
import { ProviderError } from '../domain/payments/provider-errors.js';
import type { StoresTable } from '../domain/stores/stores.js';
import { isUniqueViolation } from '../platform/db/database.js';
import { fromBool } from '../platform/db/schema.js';
import type { Database } from '../platform/db/schema.js';
import { invalidRequest } from '../platform/http/api-error.js';
import type { KeepAnswer } from '../platform/http/idempotency.js';
import type { StorefrontEvent } from '../platform/outbox/outbox.js';
import { countCardPayment } from '../platform/metrics/metrics.js';
import { newUuid } from '../platform/values/ids.js';
import { formatBrl } from '../platform/values/money.js';
import { nowIso } from '../platform/values/time.js';
import { announceCardOutcome } from './announce-card-outcome.js';
import { installmentPolicyOf } from './card-installments.js';

/** A card payment to make, from the API's body or a purchase-page order, checked by the caller's schema. */
export interface NewCardPayment {
  amountCents: number;
  installments: number;
  token: string;
  brand: string | null;
  issuerId: string | null;
  /** Normalised, with name, e-mail and document. */
  customer: Customer & { name: string; email: string; document: string };
  description: string | null;
  externalId: string | null;
  metadata: Metadata | null;
  tracking: Tracking;
  productId: string | null;
  /** The purchase-page order it pays, with what it sells; null through the API. */
  orderId: string | null;
  items: CardChargeRequest['items'];
}

export interface CreateCardPaymentOptions {
  /** The request's Idempotency-Key (the API requires one; a page order passes its own). */
  idempotencyKey: string;
  /** STOREFRONT_PUBLIC_URL: the 3-D Secure page's address. */
  publicUrl: string;
  mail: DeliveryMail;
  /** STOREFRONT_CARD_RECONCILE_SCHEDULE: when an undecided live payment is read back at its PSP. */
  scheduleMs?: readonly number[] | undefined;
  /** Stores the API's answer in the payment's transaction, see `sendCreation`. */
  keep?: KeepAnswer | undefined;
  /**
   * Writes what must commit with the new payment, after its row and before its outcome's events: a
   * page order points at its payment and records `order.created` there, so that event comes before
   * `card_payment.approved` and `sale.approved`.
   */
  withPayment?:
    ((trx: Kysely<Database>, payment: CardPaymentsTable) => Promise<StorefrontEvent | void>) | undefined;
}

export interface CreatedCardPayment {
  payment: CardPayment;
  /** False when the external_id was already used: the existing payment is answered, nothing charged. */
  created: boolean;
}

const digest = (parts: unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex');

/**
 * The PSP's idempotency key: derived from the store, the mode and the request's own key (or the
 * external_id, which names one payment whatever key it comes with), never the raw key, so one
 * store's keys can never meet another's at a PSP account they might share.
 */
export function pspIdempotencyKey(
  scope: CardScope,
  idempotencyKey: string,
  externalId: string | null,
): string {
  return digest([
    'card-psp',
    scope.storeId,
    scope.livemode,
    externalId ?? idempotencyKey,
    externalId !== null,
  ]);
}

/** Our id for the payment, the same for every retry of one request: the PSP sees one `external_reference`. */
function paymentIdOf(scope: CardScope, idempotencyKey: string): string {
  return `card_${digest(['card-id', scope.storeId, scope.livemode, idempotencyKey]).slice(0, 24)}`;
}

/** The 3-D Secure page's token (its SHA-256 is kept) and address. */
export function newActionLink(publicUrl: string): { url: string; tokenHash: string } {
  const token = randomBytes(32).toString('base64url');
  return {
    url: new URL(`/p/3ds/${token}`, publicUrl).href,
    tokenHash: createHash('sha256').update(token, 'utf8').digest('hex'),
  };
}

/**
 * Charges a card through the store's PSP for the mode and stores the payment in whatever state the
 * PSP answered, with its event, in one transaction; an approval makes its sale in that same
 * transaction. A PSP failure (502) writes nothing; a retry with the same key reaches the PSP with
 * the same derived key and our same id, so the card is charged once. An installment count the store
 * does not offer for the amount is 400 before any PSP call.
 */
export async function createCardPayment(
  db: Kysely<Database>,
  payments: PaymentProviders,
  scope: CardScope,
  store: StoresTable,
  input: NewCardPayment,
  options: CreateCardPaymentOptions,
): Promise<CreatedCardPayment> {
  const existing =
    input.externalId === null ? undefined : await findCardPaymentByExternalId(db, scope, input.externalId);
  if (existing) return { payment: toCardPayment(existing), created: false };

  const provider = await payments.card(scope);
  const terms = await termsOf(provider, store, input);
  const id = paymentIdOf(scope, options.idempotencyKey);
  const outcome = await provider
    .createPayment({
      paymentId: id,
      idempotencyKey: pspIdempotencyKey(scope, options.idempotencyKey, input.externalId),
      amountCents: input.amountCents,
      installments: input.installments,
      totalCents: terms.totalCents,
      token: input.token,
      brand: input.brand,
      issuerId: input.issuerId,
      payer: payerOf(input.customer),
      description: input.description,
      statementDescriptor: store.name,
      notificationUrl: provider.notificationUrl ?? null,
      items: input.items,
    })
    .catch((error: unknown) => {
      if (error instanceof ProviderError) Object.assign(error.attempt, { chargeId: id });
      throw error;
    });
  const now = nowIso();
  const row = newPaymentRow(scope, provider, id, input, terms, outcome, options, now);
  try {
    const payment = await db.transaction().execute(async (trx) => {
      const object = toCardPayment(row);
      await options.keep?.(trx, object);
      await insertCardPayment(trx, row);
      const before = (await options.withPayment?.(trx, row)) ?? undefined;
      await announceCardOutcome(trx, row, options.mail, now, before);
      return object;
    });
    countCardPayment(provider.name, row.status);
    return { payment, created: true };
  } catch (error) {
    if (input.externalId === null || !isUniqueViolation(error)) throw error;
    const winner = await findCardPaymentByExternalId(db, scope, input.externalId);
    if (!winner) throw error;
    return { payment: toCardPayment(winner), created: false };
  }
}

/** The installment the buyer chose, as the provider prices it for this amount. */
async function termsOf(
  provider: CardProvider,
  store: StoresTable,
  input: NewCardPayment,
): Promise<{ installmentCents: number; totalCents: number }> {
  const options = await provider.installmentOptions({
    amountCents: input.amountCents,
    bin: null,
    policy: installmentPolicyOf(store),
  });
  const chosen = options.find((option) => option.installments === input.installments);
  if (!chosen) {
    const offered = options.map((option) => option.installments);
    throw invalidRequest(
      `This store does not offer ${input.installments} installments for ${formatBrl(input.amountCents)}: choose one of ${offered.join(', ')} (GET /payments/card/installments lists them).`,
      'installments',
    );
  }
  return { installmentCents: chosen.installmentCents, totalCents: chosen.totalCents };
}

function payerOf(customer: NewCardPayment['customer']): CardChargeRequest['payer'] {
  return {
    name: customer.name,
    email: customer.email,
    document: customer.document,
    documentType: customer.document.length === 14 ? 'CNPJ' : 'CPF',
    phone: customer.whatsapp ?? null,
  };
}

/** A status a new payment can start in; anything else the PSP says is read again later. */
function startingStatus(outcome: CardOutcome): CardPaymentsTable['status'] {
  return outcome.status === 'refunded' || outcome.status === 'charged_back' ? 'processing' : outcome.status;
}

function newPaymentRow(
  scope: CardScope,
  provider: CardProvider,
  id: string,
  input: NewCardPayment,
  terms: { installmentCents: number; totalCents: number },
  outcome: CardOutcome,
  links: Pick<CreateCardPaymentOptions, 'publicUrl' | 'scheduleMs'>,
  now: string,
): CardPaymentsTable {
  const status = startingStatus(outcome);
  const action = status === 'requires_action' ? newActionLink(links.publicUrl) : null;
  const charged = outcome.charged ?? terms;
  return {
    id,
    store_id: scope.storeId,
    livemode: fromBool(scope.livemode),
    status,
    provider: provider.name,
    amount_cents: input.amountCents,
    installments: input.installments,
    installment_amount_cents: charged.installmentCents,
    total_amount_cents: charged.totalCents,
    card_brand: outcome.card?.brand ?? input.brand,
    card_last4: outcome.card?.last4 ?? null,
    card_exp_month: outcome.card?.expMonth ?? null,
    card_exp_year: outcome.card?.expYear ?? null,
    customer: JSON.stringify(input.customer),
    description: input.description,
    external_id: input.externalId,
    metadata: input.metadata === null ? null : JSON.stringify(input.metadata),
    tracking: JSON.stringify(input.tracking),
    product_id: input.productId,
    order_id: input.orderId,
    decline_code: outcome.decline?.code ?? null,
    decline_provider_code: outcome.decline?.providerCode ?? null,
    challenge: outcome.challenge === null ? null : JSON.stringify(outcome.challenge),
    next_action_url: action?.url ?? null,
    action_token_hash: action?.tokenHash ?? null,
    provider_payment_id: outcome.pspId,
    provider_charge_id: outcome.pspChargeId,
    authorization_code: outcome.authorizationCode,
    sale_id: status === 'approved' ? newUuid() : null,
    // Live payments the PSP has not decided are read again on a schedule: a lost notification never loses them.
    next_check_at:
      scope.livemode && (status === 'processing' || status === 'requires_action')
        ? nextCardCheckAt(now, new Date(now), links.scheduleMs)
        : null,
    created_at: now,
    approved_at: status === 'approved' ? now : null,
    declined_at: status === 'declined' ? now : null,
    refunded_at: null,
  };
}
