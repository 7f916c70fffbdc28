import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidRequest, notFound } from '../../platform/http/api-error.js';
import { sendCreation } from '../../platform/http/idempotency.js';
import { PageQuery } from '../../platform/http/pagination.js';
import { IdParams, ListEnvelope, Money, errorResponses } from '../../platform/http/schemas.js';
import { toCents } from '../../platform/values/money.js';
import {
  CARD_PAYMENT_ID_PATTERN,
  CardPayment,
  CardPaymentStatusSchema,
  toCardPayment,
} from '../../domain/card-payments/card-payment-object.js';
import {
  findCardPayment,
  listCardPaymentsQuery,
} from '../../domain/card-payments/card-payments-repository.js';
import type { CardScope } from '../../domain/card-payments/card-payments-repository.js';
import { CARD_TOKEN_MAX_LENGTH, CARD_TOKEN_PATTERN } from '../../domain/card-payments/card-token.js';
import { Customer, normalizeCustomer } from '../../domain/kernel/customer.js';
import { Metadata } from '../../domain/kernel/metadata.js';
import { TrackingSchema, cleanTracking } from '../../domain/kernel/tracking.js';
import { findStore } from '../../domain/stores/stores.js';
import type { StoresTable } from '../../domain/stores/stores.js';
import { EXTERNAL_ID_PATTERN } from '../../flows/create-charge.js';
import { createCardPayment } from '../../flows/create-card-payment.js';
import type { NewCardPayment } from '../../flows/create-card-payment.js';
import { installmentOptionsFor } from '../../flows/card-installments.js';
import {
  simulateChargeback,
  simulateSettlement,
  simulateThreeDSecure,
} from '../../flows/simulate-card-payment.js';
import { findProduct } from '../../domain/catalogue/products-repository.js';

const CardInput = Type.Object(
  {
    token: Type.String({
      minLength: 1,
      maxLength: CARD_TOKEN_MAX_LENGTH,
      pattern: CARD_TOKEN_PATTERN,
      'x-pattern-message': 'must be the single-use token the PSP’s script made, never a card number',
      description:
        'The single-use token the PSP’s script made in the buyer’s browser; test mode without a test PSP takes `tok_test_approved`, `tok_test_declined_<code>`, `tok_test_3ds` or `tok_test_processing`.',
      example: 'tok_test_approved',
    }),
    brand: Type.Optional(
      Type.String({
        pattern: '^[a-z0-9_-]{1,40}$',
        description:
          'The brand the PSP’s script found (Mercado Pago `payment_method_id`: `visa`, `master`…).',
      }),
    ),
    issuer_id: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,20}$',
        description: 'Mercado Pago’s `issuer_id`, when its script gave one.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The payer of a card payment: name, e-mail and document are required (the PSPs' antifraud needs them). */
const CardCustomer = Type.Composite(
  [Type.Required(Type.Pick(Customer, ['name', 'email', 'document'])), Type.Pick(Customer, ['whatsapp'])],
  { additionalProperties: false },
);

export const CreateCardPaymentBody = Type.Object(
  {
    amount: Money({
      minimum: 1,
      maximum: 1_000_000,
      description:
        "The goods' price, BRL, 1.00 to 1,000,000; interest, when the installments carry any, is added to it in `total_amount`.",
      example: 997,
    }),
    installments: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 12,
        default: 1,
        description: 'One of the options `GET /payments/card/installments` answers.',
      }),
    ),
    card: CardInput,
    customer: CardCustomer,
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 140 })),
    external_id: Type.Optional(
      Type.String({
        pattern: EXTERNAL_ID_PATTERN,
        'x-pattern-message': 'must be 1 to 100 letters, digits, `.`, `_`, `:` or `-`',
        description:
          'Your own id, unique per store and mode. Reusing one answers 200 with the existing payment and charges nothing.',
      }),
    ),
    metadata: Type.Optional(Metadata),
    tracking: Type.Optional(TrackingSchema),
    product_id: Type.Optional(
      Type.String({ format: 'uuid', description: 'An active product this payment sells.' }),
    ),
  },
  { additionalProperties: false },
);
type CreateCardPaymentBody = Static<typeof CreateCardPaymentBody>;

const InstallmentOptionsAnswer = Type.Object(
  {
    object: Type.Literal('installment_options'),
    amount: Type.Number(),
    options: Type.Array(
      Type.Object({
        installments: Type.Integer(),
        installment_amount: Type.Number(),
        total_amount: Type.Number(),
        interest_free: Type.Boolean(),
      }),
    ),
  },
  { $id: 'InstallmentOptions', title: 'InstallmentOptions' },
);

const InstallmentsQuery = Type.Object(
  {
    amount: Money({ minimum: 1, maximum: 1_000_000, description: 'BRL, 1.00 to 1,000,000.' }),
    bin: Type.Optional(
      Type.String({
        pattern: '^[0-9]{6,8}$',
        maxLength: 8,
        description: 'The card’s first 6 to 8 digits (Mercado Pago prices by it).',
      }),
    ),
  },
  { additionalProperties: false },
);

const ListCardPaymentsQuery = Type.Partial(
  Type.Object({
    ...PageQuery,
    status: CardPaymentStatusSchema,
    external_id: Type.String({ pattern: EXTERNAL_ID_PATTERN, maxLength: 100 }),
  }),
  { additionalProperties: false },
);

const Simulate3dsBody = Type.Object(
  { result: Type.Union([Type.Literal('authenticated'), Type.Literal('failed')]) },
  { additionalProperties: false },
);
const SimulateSettlementBody = Type.Object(
  { result: Type.Union([Type.Literal('approved'), Type.Literal('declined')]) },
  { additionalProperties: false },
);

const TEST_ONLY = (operation: string) =>
  invalidRequest(
    `${operation} is only available to test keys (sk_test_…); live card payments are decided by their PSP.`,
  );

export async function cardPaymentsRoutes(parent: FastifyInstance): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db, payments } = app;
  const tags = ['Card payments'];
  const links = () => ({
    mail: app.config,
    publicUrl: app.config.publicUrl,
    scheduleMs: app.config.cardReconcileScheduleMs,
  });

  async function paymentOr404(scope: CardScope, id: string) {
    const row = CARD_PAYMENT_ID_PATTERN.test(id) ? await findCardPayment(db, scope, id) : undefined;
    if (!row) throw notFound('card_payment', id);
    return row;
  }

  async function storeOf(request: FastifyRequest): Promise<StoresTable> {
    const store = await findStore(db, request.auth.storeId);
    if (!store) throw new Error(`store ${request.auth.storeId} of an authenticated key is missing`);
    return store;
  }

  async function inputOf(scope: CardScope, body: CreateCardPaymentBody): Promise<NewCardPayment> {
    const customer = normalizeCustomer(body.customer) as NewCardPayment['customer'];
    const amountCents = toCents(body.amount);
    let itemName = body.description ?? 'Pagamento';
    if (body.product_id !== undefined) {
      const product = await findProduct(db, scope.storeId, body.product_id);
      if (!product) throw invalidRequest(`No such product: '${body.product_id}'.`, 'product_id');
      if (product.ativo !== 1)
        throw invalidRequest(`Product '${body.product_id}' is archived and cannot be sold.`, 'product_id');
      itemName = product.nome;
    }
    return {
      amountCents,
      installments: body.installments ?? 1,
      token: body.card.token,
      brand: body.card.brand ?? null,
      issuerId: body.card.issuer_id ?? null,
      customer,
      description: body.description ?? null,
      externalId: body.external_id ?? null,
      metadata: body.metadata ?? null,
      tracking: cleanTracking(body.tracking),
      productId: body.product_id ?? null,
      orderId: null,
      items: [{ code: body.product_id ?? 'payment', description: itemName, amountCents, quantity: 1 }],
    };
  }

  app.post(
    '/payments/card',
    {
      config: { scope: 'cards:write', idempotent: true },
      schema: {
        tags,
        operationId: 'createCardPayment',
        summary:
          'Charge a card through the store’s PSP (API 1.3.0); Idempotency-Key is required, and a retry never charges twice',
        body: CreateCardPaymentBody,
        response: { 200: CardPayment, 201: CardPayment, ...errorResponses(400, 409, 502, 503) },
      },
    },
    async (request, reply) => {
      const idempotencyKey = request.headers['idempotency-key'];
      if (typeof idempotencyKey !== 'string' || idempotencyKey === '')
        throw invalidRequest(
          'The Idempotency-Key header is required for card payments, so a retried request never charges the card twice.',
          'Idempotency-Key',
        );
      const store = await storeOf(request);
      const input = await inputOf(request.auth, request.body);
      return sendCreation(request, reply, 201, async (keep) => {
        const { payment, created } = await createCardPayment(db, payments, request.auth, store, input, {
          idempotencyKey,
          ...links(),
          keep,
        });
        if (!created) reply.code(200);
        return payment;
      });
    },
  );

  app.get(
    '/payments/card/installments',
    {
      config: { scope: 'cards:read' },
      schema: {
        tags,
        operationId: 'listCardInstallments',
        summary:
          'The installment options a buyer may choose for an amount (and card BIN), under the store’s policy',
        querystring: InstallmentsQuery,
        response: { 200: InstallmentOptionsAnswer, ...errorResponses(400, 502) },
      },
    },
    async (request) =>
      installmentOptionsFor(
        payments,
        request.auth,
        await storeOf(request),
        toCents(request.query.amount),
        request.query.bin ?? null,
      ),
  );

  app.get(
    '/payments/card',
    {
      config: { scope: 'cards:read' },
      schema: {
        tags,
        operationId: 'listCardPayments',
        summary: 'List card payments of the key’s mode, newest first, optionally by status or external_id',
        querystring: ListCardPaymentsQuery,
        response: { 200: ListEnvelope(CardPayment), ...errorResponses(400) },
      },
    },
    async (request) => {
      const { storeId, livemode } = request.auth;
      return app.pagination.list(
        {
          listing: `card_payments:${livemode ? 'live' : 'test'}`,
          storeId,
          limit: request.query.limit ?? 20,
          startingAfter: request.query.starting_after,
        },
        listCardPaymentsQuery(db, request.auth, {
          status: request.query.status,
          externalId: request.query.external_id,
        }),
        toCardPayment,
      );
    },
  );

  app.get(
    '/payments/card/:id',
    {
      config: { scope: 'cards:read' },
      schema: {
        tags,
        operationId: 'getCardPayment',
        summary: 'Retrieve a card payment',
        params: IdParams,
        response: { 200: CardPayment, ...errorResponses(404) },
      },
    },
    async (request) => toCardPayment(await paymentOr404(request.auth, request.params.id)),
  );

  app.post(
    '/payments/card/:id/simulate_3ds',
    {
      config: { scope: 'cards:write' },
      schema: {
        tags,
        operationId: 'simulateCardThreeDSecure',
        summary:
          'Test keys only: the buyer authenticates (→ approved) or fails (→ declined authentication_failed)',
        params: IdParams,
        body: Simulate3dsBody,
        response: { 200: CardPayment, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      if (request.auth.livemode) throw TEST_ONLY('simulate_3ds');
      const row = await paymentOr404(request.auth, request.params.id);
      return simulateThreeDSecure(db, row, request.body.result, links());
    },
  );

  app.post(
    '/payments/card/:id/simulate_settlement',
    {
      config: { scope: 'cards:write' },
      schema: {
        tags,
        operationId: 'simulateCardSettlement',
        summary:
          'Test keys only: the issuer decides a processing payment (→ approved, or declined issuer_declined)',
        params: IdParams,
        body: SimulateSettlementBody,
        response: { 200: CardPayment, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      if (request.auth.livemode) throw TEST_ONLY('simulate_settlement');
      const row = await paymentOr404(request.auth, request.params.id);
      return simulateSettlement(db, row, request.body.result, links());
    },
  );

  app.post(
    '/payments/card/:id/simulate_chargeback',
    {
      config: { scope: 'cards:write' },
      schema: {
        tags,
        operationId: 'simulateCardChargeback',
        summary:
          'Test keys only: the buyer disputes an approved payment (its sale → charged_back; the payment stays approved)',
        params: IdParams,
        response: { 200: CardPayment, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      if (request.auth.livemode) throw TEST_ONLY('simulate_chargeback');
      const row = await paymentOr404(request.auth, request.params.id);
      return simulateChargeback(db, row, links());
    },
  );
}
