import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { invalidRequest, notFound } from '../../platform/http/api-error.js';
import { sendCreation } from '../../platform/http/idempotency.js';
import { PageQuery } from '../../platform/http/pagination.js';
import { IdParams, ListEnvelope, errorResponses } from '../../platform/http/schemas.js';
import { nowIso } from '../../platform/values/time.js';
import { cancelCharge } from '../../flows/cancel-charge.js';
import { keyActor } from './key-actor.js';
import { CreatePixChargeBody, EXTERNAL_ID_PATTERN, createCharge } from '../../flows/create-charge.js';
import {
  PIX_CHARGE_ID_PATTERN,
  PixCharge,
  PixChargeStatus,
  toPixCharge,
} from '../../domain/pix/pix-charge-object.js';
import {
  findCharge,
  findChargeByExternalId,
  listChargesQuery,
} from '../../domain/pix/pix-charges-repository.js';
import type { ChargeScope } from '../../domain/pix/pix-charges-repository.js';
import { simulateExpiration, simulatePayment } from '../../flows/simulate-payment.js';

const ListPixChargesQuery = Type.Partial(Type.Object({ ...PageQuery, status: PixChargeStatus }), {
  additionalProperties: false,
});

/** On a 200 for a reused external_id: the sent fields that differ from the existing charge. */
export const EXTERNAL_ID_MISMATCH_HEADER = 'External-Id-Mismatch';

const ExternalIdParams = Type.Object({ externalId: Type.String() });
const externalIdPattern = new RegExp(EXTERNAL_ID_PATTERN);

export async function pixChargesRoutes(parent: FastifyInstance): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db, payments } = app;
  const tags = ['Pix charges'];

  async function chargeOr404(scope: ChargeScope, id: string) {
    const row = PIX_CHARGE_ID_PATTERN.test(id) ? await findCharge(db, scope, id) : undefined;
    if (!row) throw notFound('pix_charge', id);
    return row;
  }

  app.post(
    '/payments/pix',
    {
      config: {
        scope: 'pix:write',
        idempotent: true,
        responseHeaders: {
          200: {
            [EXTERNAL_ID_MISMATCH_HEADER]:
              'Present when the `external_id` was already used and fields you sent differ from the existing charge, which is still the one answered: the names of those fields, comma-separated (`amount`, `description`, `customer`, `metadata`, `product_id`, `tracking`). Absent on an identical retry.',
          },
        },
      },
      schema: {
        tags,
        operationId: 'createPixCharge',
        summary: 'Create a Pix charge; reusing an external_id answers 200 with the existing charge',
        body: CreatePixChargeBody,
        response: { 200: PixCharge, 201: PixCharge, ...errorResponses(400, 409, 502, 503) },
      },
    },
    async (request, reply) =>
      sendCreation(request, reply, 201, async (keep) => {
        const idempotencyKey = request.headers['idempotency-key'];
        const { charge, created, mismatch } = await createCharge(db, payments, request.auth, request.body, {
          idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : undefined,
          reconcileScheduleMs: app.config.pixReconcileScheduleMs,
          keep,
        });
        if (mismatch.length > 0) reply.header(EXTERNAL_ID_MISMATCH_HEADER, mismatch.join(', '));
        if (!created) reply.code(200);
        return charge;
      }),
  );

  app.get(
    '/payments/pix',
    {
      config: { scope: 'pix:read' },
      schema: {
        tags,
        operationId: 'listPixCharges',
        summary: 'List Pix charges of the key’s mode, newest first, optionally by status',
        querystring: ListPixChargesQuery,
        response: { 200: ListEnvelope(PixCharge), ...errorResponses(400) },
      },
    },
    async (request) => {
      const { storeId, livemode } = request.auth;
      const now = nowIso();
      return app.pagination.list(
        {
          // Per mode, so a test cursor is foreign to the live listing and the reverse.
          listing: `pix_charges:${livemode ? 'live' : 'test'}`,
          storeId,
          limit: request.query.limit ?? 20,
          startingAfter: request.query.starting_after,
        },
        listChargesQuery(db, request.auth, request.query.status, now),
        (row) => toPixCharge(row, now),
      );
    },
  );

  app.get(
    '/payments/pix/external/:externalId',
    {
      config: { scope: 'pix:read' },
      schema: {
        tags,
        operationId: 'getPixChargeByExternalId',
        summary: 'Retrieve a Pix charge by your external_id',
        params: ExternalIdParams,
        response: { 200: PixCharge, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { externalId } = request.params;
      const row = externalIdPattern.test(externalId)
        ? await findChargeByExternalId(db, request.auth, externalId)
        : undefined;
      if (!row) throw notFound('pix_charge with external_id', externalId);
      return toPixCharge(row);
    },
  );

  app.get(
    '/payments/pix/:id',
    {
      config: { scope: 'pix:read' },
      schema: {
        tags,
        operationId: 'getPixCharge',
        summary: 'Retrieve a Pix charge',
        params: IdParams,
        response: { 200: PixCharge, ...errorResponses(404) },
      },
    },
    async (request) => toPixCharge(await chargeOr404(request.auth, request.params.id)),
  );

  app.post(
    '/payments/pix/:id/cancel',
    {
      config: { scope: 'pix:write' },
      schema: {
        tags,
        operationId: 'cancelPixCharge',
        summary:
          'Cancel a pending charge (API 1.1.0); live, the PSP removes it first, and a charge found paid there is 400',
        params: IdParams,
        response: { 200: PixCharge, ...errorResponses(400, 404, 502) },
      },
    },
    async (request) =>
      cancelCharge(
        db,
        payments,
        await chargeOr404(request.auth, request.params.id),
        app.config,
        keyActor(request),
      ),
  );

  app.post(
    '/payments/pix/:id/simulate_payment',
    {
      config: { scope: 'pix:write' },
      schema: {
        tags,
        operationId: 'simulatePixPayment',
        summary: 'Test keys only: pay a pending charge, creating its sale (pix.paid, then sale.approved)',
        params: IdParams,
        response: { 200: PixCharge, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      // The operation itself is invalid for live keys, whatever the id: 400 before any lookup.
      if (request.auth.livemode) {
        throw invalidRequest(
          'simulate_payment is only available to test keys (sk_test_…); live charges are paid by the payer.',
        );
      }
      return simulatePayment(db, await chargeOr404(request.auth, request.params.id), app.config);
    },
  );

  app.post(
    '/payments/pix/:id/simulate_expiration',
    {
      config: { scope: 'pix:write' },
      schema: {
        tags,
        operationId: 'simulatePixExpiration',
        summary: 'Test keys only: a pending charge expires at once (pix.expired)',
        params: IdParams,
        response: { 200: PixCharge, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      if (request.auth.livemode) {
        throw invalidRequest(
          'simulate_expiration is only available to test keys (sk_test_…); live charges expire at their expires_at.',
        );
      }
      return simulateExpiration(db, await chargeOr404(request.auth, request.params.id));
    },
  );
}
