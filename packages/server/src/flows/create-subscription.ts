import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';
import { fromBool } from '../platform/db/schema.js';
import { invalidRequest } from '../platform/http/api-error.js';
import type { KeepAnswer } from '../platform/http/idempotency.js';
import { countPixCharge } from '../platform/metrics/metrics.js';
import { TrackingSchema, cleanTracking } from '../domain/kernel/tracking.js';
import { insertChargeWithEvent, newChargeRow, retryKeyOf } from './create-charge.js';
import { Customer, normalizeCustomer } from '../domain/kernel/customer.js';
import { toPixCharge } from '../domain/pix/pix-charge-object.js';
import type { PixCharge } from '../domain/pix/pix-charge-object.js';
import { pixReceiverFor } from '../domain/pix/pix-settings.js';
import type { PaymentProviders } from '../domain/payments/payment-providers.js';
import { findProduct } from '../domain/catalogue/products-repository.js';
import type { ProductsTable } from '../domain/catalogue/product-object.js';
import type { Recorrencia } from '../domain/kernel/recurrence.js';
import { findStore } from '../domain/stores/stores.js';
import type { StoresTable } from '../domain/stores/stores.js';
import { prefixedId } from '../platform/values/ids.js';
import { localDate } from '../platform/values/local-date.js';
import { nowIso } from '../platform/values/time.js';
import {
  beginCreation,
  completeCreation,
  releaseCreation,
  saveCreationStep,
} from '../domain/subscriptions/creation-progress.js';
import type { CreationStep, SubscriptionCreationsTable } from '../domain/subscriptions/creation-progress.js';
import type {
  CreationHeld,
  Periodicidade,
  RecurringPixProvider,
} from '../domain/payments/recurring-provider.js';
import { announceCreated } from './subscription-outcomes.js';
import { FIRST_CHARGE_METADATA_KEY, toSubscription } from '../domain/subscriptions/subscription-object.js';
import type { Subscription, SubscriptionsTable } from '../domain/subscriptions/subscription-object.js';
import { insertSubscription } from '../domain/subscriptions/subscriptions-repository.js';
import type { SubscriptionScope } from '../domain/subscriptions/subscriptions-repository.js';

/** The standard's limit on `vinculo.contrato` and `vinculo.objeto`. */
const VINCULO_MAX = 35;
/** How long the buyer has to scan the first charge's code (pay and authorise). */
export const FIRST_CHARGE_SECONDS = 30 * 60;

/** A subscription's payer must be named, with a CPF or CNPJ: Pix Automático's `devedor` needs both. */
export const SubscriptionCustomer = Type.Object(
  { ...Customer.properties, ...Type.Required(Type.Pick(Customer, ['name', 'document'])).properties },
  { additionalProperties: false },
);
export type SubscriptionCustomer = Static<typeof SubscriptionCustomer>;

export const CreateSubscriptionBody = Type.Object(
  {
    product_id: Type.String({
      format: 'uuid',
      description: 'An active product of the store with a `recorrencia`.',
    }),
    customer: SubscriptionCustomer,
    tracking: Type.Optional(TrackingSchema),
  },
  { additionalProperties: false },
);
export type CreateSubscriptionBody = Static<typeof CreateSubscriptionBody>;

/** The answer of a creation: the subscription with its `first_charge`. */
export type CreatedSubscription = Subscription & { first_charge: PixCharge };

export interface CreateSubscriptionOptions {
  idempotencyKey?: string | undefined;
  keep?: KeepAnswer | undefined;
  /** The purchase-page order this subscription is bought by. */
  orderId?: string | undefined;
  /**
   * Names this creation for a retry when there is no Idempotency-Key (the purchase page sending the
   * same order again): an unfinished creation with the same key is resumed.
   */
  retryKey?: string | undefined;
  reconcileScheduleMs?: readonly number[] | undefined;
}

/** A product sold as a subscription: of the store, active, with a recurrence. */
export async function recurringProduct(
  db: Kysely<Database>,
  storeId: string,
  productId: string,
): Promise<RecurringProduct> {
  const product = await findProduct(db, storeId, productId);
  if (!product) throw invalidRequest(`No such product: '${productId}'.`, 'product_id');
  if (product.ativo !== 1)
    throw invalidRequest(`Product '${productId}' is archived and cannot be sold.`, 'product_id');
  if (product.recorrencia === null) {
    throw invalidRequest(
      `Product '${productId}' has no recorrencia: it is sold once, not as a subscription.`,
      'product_id',
    );
  }
  return product as RecurringProduct;
}

type RecurringProduct = ProductsTable & { recorrencia: Recorrencia };

/**
 * Creates a subscription and its first charge (Jornada 3): the provider creates the charge and the
 * authorisation whose one code pays the first cycle and authorises the rest; only once it accepted
 * are the charge (`pix.created`) and the subscription (`subscription.created`) written, in one
 * transaction. The subscription copies the product's price, recurrence and retry policy now: later
 * product edits do not change it.
 *
 * Every step the PSP answered is saved (`subscription_creations`) before the next call, under a key
 * of the request: a retry that failed half-way (a timeout, a 5xx after the PSP made the rec) resumes
 * with the same subscription id, charge and txid and with what the PSP holds, so one subscription
 * has one authorisation at its PSP however often its creation is retried.
 */
export async function createSubscription(
  db: Kysely<Database>,
  payments: PaymentProviders,
  scope: SubscriptionScope,
  body: CreateSubscriptionBody,
  options: CreateSubscriptionOptions = {},
): Promise<CreatedSubscription> {
  const customer = normalizeCustomer(body.customer);
  const product = await recurringProduct(db, scope.storeId, body.product_id);
  const store = await findStore(db, scope.storeId);
  if (!store) throw new Error(`store ${scope.storeId} of an authenticated key is missing`);
  const [pixProvider, provider] = await Promise.all([payments.pix(scope), payments.recurring(scope)]);
  // Before the creation's first row: a subscription that could never be billed is not started.
  provider.checkCanBill();
  const freshChargeId = prefixedId('pix');
  const creation = await beginCreation(
    db,
    scope,
    options.retryKey ?? retryKeyOf(scope, options.idempotencyKey, body) ?? prefixedId('once'),
    {
      subscriptionId: prefixedId('sub'),
      chargeId: freshChargeId,
      txid: pixProvider.txidFor(freshChargeId, null),
    },
    FIRST_CHARGE_SECONDS * 1000,
  );
  try {
    const answer = await createFromProgress(db, scope, body, options, creation, {
      provider,
      customer,
      product,
      store,
    });
    countPixCharge('created', scope.livemode);
    return answer;
  } catch (error) {
    // The lease would lapse anyway; released now, a retry resumes at once.
    await releaseCreation(db, creation).catch(() => undefined);
    throw error;
  }
}

interface CreationContext {
  provider: RecurringPixProvider;
  customer: Customer;
  product: RecurringProduct;
  store: StoresTable;
}

/** The PSP's part (resumed from what an earlier try saved), then the rows, in one transaction. */
async function createFromProgress(
  db: Kysely<Database>,
  scope: SubscriptionScope,
  body: CreateSubscriptionBody,
  options: CreateSubscriptionOptions,
  creation: SubscriptionCreationsTable,
  { provider, customer, product, store }: CreationContext,
): Promise<CreatedSubscription> {
  const id = creation.subscription_id;
  const chargeId = creation.charge_id;
  const description = `Assinatura: ${product.nome}`.slice(0, 140);
  const created = await provider.createSubscriptionCharge({
    txid: creation.txid,
    subscriptionId: id,
    objeto: [...product.nome].slice(0, VINCULO_MAX).join(''),
    customer,
    dataInicial: localDate(new Date(), store.timezone),
    periodicidade: periodicidadeOf(product.recorrencia),
    amountCents: product.preco_cents,
    politicaRetentativa: product.retry_policy === '3_in_7_days' ? 'PERMITE_3R_7D' : 'NAO_PERMITE',
    expiresIn: FIRST_CHARGE_SECONDS,
    description,
    receiver: pixReceiverFor(store, scope.livemode),
    progress: { held: heldOf(creation), save: (step) => saveCreationStep(db, creation, stepOf(step)) },
  });
  const chargeRow = await newChargeRow(scope, chargeId, created, {
    amountCents: product.preco_cents,
    expiresIn: FIRST_CHARGE_SECONDS,
    description,
    externalId: null,
    customer,
    metadata: { [FIRST_CHARGE_METADATA_KEY]: id, product_id: product.id },
    productId: product.id,
    tracking: cleanTracking(body.tracking),
    reconcileScheduleMs: options.reconcileScheduleMs,
  });
  const row: SubscriptionsTable = {
    id,
    store_id: scope.storeId,
    livemode: fromBool(scope.livemode),
    status: 'pending',
    product_id: product.id,
    customer: JSON.stringify(customer),
    tracking: JSON.stringify(cleanTracking(body.tracking)),
    amount_cents: product.preco_cents,
    recorrencia: product.recorrencia,
    retry_policy: product.retry_policy,
    anchor_date: null,
    cycle: 0,
    current_period_start: null,
    current_period_end: null,
    next_charge_date: null,
    cancel_reason: null,
    canceled_at: null,
    order_id: options.orderId ?? null,
    first_charge_id: chargeId,
    id_rec: created.idRec,
    next_action_date: null,
    claimed_until: null,
    cancel_email_status: null,
    cancel_email_sent_at: null,
    cancel_email_last_error: null,
    // Live: the reconciler first reads the authorisation (GET /rec) when it first reads the charge.
    next_check_at: chargeRow.next_check_at,
    created_at: chargeRow.created_at,
  };
  return db.transaction().execute(async (trx) => {
    const firstCharge = toPixCharge(chargeRow, nowIso());
    const result: CreatedSubscription = { ...toSubscription(row), first_charge: firstCharge };
    // The answer first (an Idempotency-Key): a concurrent duplicate waits on the key and replays it.
    await options.keep?.(trx, result);
    const chargeEvent = await insertChargeWithEvent(trx, chargeRow, firstCharge);
    await insertSubscription(trx, row);
    await announceCreated(trx, row, chargeEvent);
    await completeCreation(trx, creation);
    return result;
  });
}

/** `periodicidade` of `POST /rec`: the product's `recorrencia` in capitals. */
function periodicidadeOf(recorrencia: Recorrencia): Periodicidade {
  return recorrencia.toUpperCase() as Periodicidade;
}

/** What an earlier try got the PSP to hold, for the provider to resume from. */
function heldOf(row: SubscriptionCreationsTable): CreationHeld {
  return {
    loc: row.loc_id === null ? null : { id: row.loc_id, location: row.loc_location! },
    idRec: row.id_rec,
  };
}

/** A step the provider hands to `progress.save`, as the creation's row keeps it. */
function stepOf(step: Partial<CreationHeld>): CreationStep {
  return {
    ...(step.loc && { loc_id: step.loc.id, loc_location: step.loc.location }),
    ...(step.idRec !== undefined && { id_rec: step.idRec }),
  };
}
