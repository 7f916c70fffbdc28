import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { invalidRequest, notFound } from '../../platform/http/api-error.js';
import { sendCreation } from '../../platform/http/idempotency.js';
import { PageQuery } from '../../platform/http/pagination.js';
import { IdParams, ListEnvelope, errorResponses } from '../../platform/http/schemas.js';
import { cancelSubscription } from '../../flows/cancel-subscription.js';
import { keyActor } from './key-actor.js';
import { CreateSubscriptionBody, createSubscription } from '../../flows/create-subscription.js';
import { simulateBuyerCancel, simulateFailure, simulateRenewal } from '../../flows/simulate-subscription.js';
import {
  SUBSCRIPTION_ID_PATTERN,
  Subscription,
  SubscriptionStatusSchema,
  toSubscription,
} from '../../domain/subscriptions/subscription-object.js';
import type { SubscriptionsTable } from '../../domain/subscriptions/subscription-object.js';
import {
  findSubscription,
  listSubscriptionsQuery,
} from '../../domain/subscriptions/subscriptions-repository.js';
import type { SubscriptionScope } from '../../domain/subscriptions/subscriptions-repository.js';
import { PixCharge } from '../../domain/pix/pix-charge-object.js';

/** POST /subscriptions answers the subscription and its first charge. */
const CreatedSubscription = Type.Object(
  {
    ...Subscription.properties,
    // The Pix charge to show the buyer: its `copy_paste` and QR pay the first cycle and authorise the
    // recurrence in one scan (Jornada 3).
    first_charge: PixCharge,
  },
  { $id: 'CreatedSubscription', title: 'CreatedSubscription' },
);

const ListSubscriptionsQuery = Type.Partial(
  Type.Object({
    ...PageQuery,
    status: SubscriptionStatusSchema,
    product_id: Type.String({
      format: 'uuid',
      maxLength: 36,
      description: 'Only subscriptions of this product.',
    }),
  }),
  { additionalProperties: false },
);

/** The simulate operations: test keys only, refused for live keys before any lookup. */
const SIMULATIONS = {
  simulate_renewal: {
    operationId: 'simulateSubscriptionRenewal',
    summary:
      'Test keys only: the next cycle’s charge is paid (a sale with its cycle, the period advances, subscription.renewed)',
  },
  simulate_failure: {
    operationId: 'simulateSubscriptionFailure',
    summary:
      'Test keys only: an attempt at the next cycle’s charge fails (past_due with retries left, else canceled with payment_failed)',
  },
  simulate_buyer_cancel: {
    operationId: 'simulateSubscriptionBuyerCancel',
    summary: 'Test keys only: the buyer revokes the authorisation at their bank (canceled, reason buyer)',
  },
} as const;

export async function subscriptionsRoutes(parent: FastifyInstance): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db, payments } = app;
  const tags = ['Subscriptions'];

  async function subscriptionOr404(scope: SubscriptionScope, id: string): Promise<SubscriptionsTable> {
    const row = SUBSCRIPTION_ID_PATTERN.test(id) ? await findSubscription(db, scope, id) : undefined;
    if (!row) throw notFound('subscription', id);
    return row;
  }

  app.post(
    '/subscriptions',
    {
      config: { scope: 'subscriptions:write', idempotent: true },
      schema: {
        tags,
        operationId: 'createSubscription',
        summary:
          'Subscribe a buyer to a recurring product (API 1.2.0): answers the subscription, pending, with its first_charge, whose one code pays the first cycle and authorises the rest (Pix Automático, Jornada 3)',
        body: CreateSubscriptionBody,
        response: { 201: CreatedSubscription, ...errorResponses(400, 409, 502, 503) },
      },
    },
    async (request, reply) =>
      sendCreation(request, reply, 201, async (keep) => {
        const idempotencyKey = request.headers['idempotency-key'];
        return createSubscription(db, payments, request.auth, request.body, {
          idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : undefined,
          reconcileScheduleMs: app.config.pixReconcileScheduleMs,
          keep,
        });
      }),
  );

  app.get(
    '/subscriptions',
    {
      config: { scope: 'subscriptions:read' },
      schema: {
        tags,
        operationId: 'listSubscriptions',
        summary: 'List subscriptions of the key’s mode, newest first, optionally by status and product',
        querystring: ListSubscriptionsQuery,
        response: { 200: ListEnvelope(Subscription), ...errorResponses(400) },
      },
    },
    async (request) => {
      const { storeId, livemode } = request.auth;
      return app.pagination.list(
        {
          listing: `subscriptions:${livemode ? 'live' : 'test'}`,
          storeId,
          limit: request.query.limit ?? 20,
          startingAfter: request.query.starting_after,
        },
        listSubscriptionsQuery(db, request.auth, request.query),
        toSubscription,
      );
    },
  );

  app.get(
    '/subscriptions/:id',
    {
      config: { scope: 'subscriptions:read' },
      schema: {
        tags,
        operationId: 'getSubscription',
        summary: 'Retrieve a subscription',
        params: IdParams,
        response: { 200: Subscription, ...errorResponses(404) },
      },
    },
    async (request) => toSubscription(await subscriptionOr404(request.auth, request.params.id)),
  );

  app.post(
    '/subscriptions/:id/cancel',
    {
      config: { scope: 'subscriptions:write' },
      schema: {
        tags,
        operationId: 'cancelSubscription',
        summary:
          'Cancel a subscription (reason merchant, subscription.canceled); live, the authorisation is canceled at the PSP first',
        params: IdParams,
        response: { 200: Subscription, ...errorResponses(400, 404, 502) },
      },
    },
    async (request) =>
      toSubscription(
        await cancelSubscription(
          db,
          payments,
          await subscriptionOr404(request.auth, request.params.id),
          app.config,
          keyActor(request),
        ),
      ),
  );

  for (const [operation, doc] of Object.entries(SIMULATIONS)) {
    app.post(
      `/subscriptions/:id/${operation}`,
      {
        config: { scope: 'subscriptions:write' },
        schema: {
          tags,
          ...doc,
          params: IdParams,
          response: { 200: Subscription, ...errorResponses(400, 404) },
        },
      },
      async (request) => {
        if (request.auth.livemode) {
          throw invalidRequest(
            `${operation} is only available to test keys (sk_test_…); live subscriptions are billed by the buyer's bank.`,
          );
        }
        const row = await subscriptionOr404(request.auth, request.params.id);
        const changed =
          operation === 'simulate_renewal'
            ? await simulateRenewal(db, payments, row, app.config)
            : operation === 'simulate_failure'
              ? await simulateFailure(db, payments, row)
              : await simulateBuyerCancel(db, row);
        return toSubscription(changed);
      },
    );
  }
}
