import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../db/database.js';
import { fromBool } from '../db/schema.js';
import type { Database } from '../db/schema.js';
import { invalidRequest, notFound } from '../http/api-error.js';
import { PageQuery } from '../http/pagination.js';
import { IdParams, ListEnvelope, Money, Nullable, Timestamp, errorResponses } from '../http/schemas.js';
import { prefixedId } from '../common/ids.js';
import { toCents } from '../common/money.js';
import { nowIso } from '../common/time.js';
import { COUPON_CODE_PATTERN, COUPON_ID_PATTERN, Coupon, toCoupon } from './coupon-object.js';
import type { CouponsTable } from './coupon-object.js';
import { findCoupon, insertCoupon, listCouponsQuery, updateCoupon } from './coupons-repository.js';

const MAX_PRODUCT_IDS = 100;

const editable = {
  active: Type.Boolean({ description: 'Defaults to true. An inactive coupon is refused on the page.' }),
  max_redemptions: Nullable(
    Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: 'null (the default) is unlimited.' }),
  ),
  expires_at: Nullable(
    Type.String({ ...Timestamp, description: 'When the coupon stops being accepted; null never.' }),
  ),
  product_ids: Type.Array(Type.String({ format: 'uuid' }), {
    maxItems: MAX_PRODUCT_IDS,
    uniqueItems: true,
    description: 'Products of the store it applies to (at most 100); empty (the default) is every product.',
  }),
};

const CreateCouponBody = Type.Object(
  {
    code: Type.String({
      pattern: COUPON_CODE_PATTERN,
      description: '3-40 of A-Z, 0-9, `_` and `-`; unique per store whatever the case; stored upper-case.',
      example: 'BEMVINDO10',
    }),
    percent_off: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, description: 'Either this or amount_off.' }),
    ),
    amount_off: Type.Optional(
      Money({
        minimum: 0.01,
        maximum: 1_000_000,
        description: 'BRL off the price; either this or percent_off.',
      }),
    ),
    ...Type.Partial(Type.Object(editable)).properties,
  },
  // A whole example: the field-by-field one would send both discounts, or a past expiry.
  { additionalProperties: false, example: { code: 'BEMVINDO10', percent_off: 10, max_redemptions: 100 } },
);
type CreateCouponBody = Static<typeof CreateCouponBody>;

/** The code and the discount are fixed at creation: sales already made name them. */
const UpdateCouponBody = Type.Partial(Type.Object(editable), { additionalProperties: false });
type UpdateCouponBody = Static<typeof UpdateCouponBody>;

const ListCouponsQuery = Type.Partial(
  Type.Object({ ...PageQuery, active: Type.Boolean({ description: '`true` or `false`.' }) }),
  { additionalProperties: false },
);

/** Rules beyond the schema, shared by creation and change: the dates and the store's products. */
async function checkEditable(db: Kysely<Database>, storeId: string, body: UpdateCouponBody): Promise<void> {
  if (body.expires_at && body.expires_at <= nowIso()) {
    throw invalidRequest('expires_at must be in the future.', 'expires_at');
  }
  const ids = body.product_ids ?? [];
  if (ids.length === 0) return;
  const found = await db
    .selectFrom('products')
    .select('id')
    .where('store_id', '=', storeId)
    .where('id', 'in', ids)
    .execute();
  const known = new Set(found.map((row) => row.id));
  const missing = ids.findIndex((id) => !known.has(id));
  if (missing >= 0) {
    throw invalidRequest(`No such product: '${ids[missing]}'.`, `product_ids.${missing}`);
  }
}

function discountOf(body: CreateCouponBody): Pick<CouponsTable, 'percent_off' | 'amount_off_cents'> {
  const hasPercent = body.percent_off !== undefined;
  const hasAmount = body.amount_off !== undefined;
  if (hasPercent === hasAmount) {
    throw invalidRequest(
      'Send exactly one of percent_off and amount_off.',
      hasPercent ? 'amount_off' : 'percent_off',
    );
  }
  return {
    percent_off: body.percent_off ?? null,
    amount_off_cents: body.amount_off === undefined ? null : toCents(body.amount_off),
  };
}

export async function couponsRoutes(parent: FastifyInstance): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app;
  const tags = ['Coupons'];

  async function couponOr404(executor: Kysely<Database>, storeId: string, id: string) {
    const row = COUPON_ID_PATTERN.test(id) ? await findCoupon(executor, storeId, id) : undefined;
    if (!row) throw notFound('coupon', id);
    return row;
  }

  app.get(
    '/coupons',
    {
      config: { scope: 'coupons:read' },
      schema: {
        tags,
        operationId: 'listCoupons',
        summary: 'List coupons, newest first, optionally by active',
        querystring: ListCouponsQuery,
        response: { 200: ListEnvelope(Coupon), ...errorResponses(400) },
      },
    },
    async (request) => {
      const { storeId } = request.auth;
      let query = listCouponsQuery(db, storeId);
      if (request.query.active !== undefined)
        query = query.where('active', '=', fromBool(request.query.active));
      return app.pagination.list(
        {
          listing: `coupons:${request.query.active ?? 'all'}`,
          storeId,
          limit: request.query.limit ?? 20,
          startingAfter: request.query.starting_after,
        },
        query,
        toCoupon,
      );
    },
  );

  app.post(
    '/coupons',
    {
      config: { scope: 'coupons:write', idempotent: true },
      schema: {
        tags,
        operationId: 'createCoupon',
        summary: 'Create a coupon: percent_off or amount_off off the main product’s price',
        body: CreateCouponBody,
        response: { 201: Coupon, ...errorResponses(400, 409) },
      },
    },
    async (request, reply) => {
      const { storeId } = request.auth;
      const body = request.body;
      const discount = discountOf(body);
      await checkEditable(db, storeId, body);
      const code = body.code.toUpperCase();
      const row: CouponsTable = {
        id: prefixedId('cpn'),
        store_id: storeId,
        code,
        code_key: code,
        ...discount,
        active: fromBool(body.active ?? true),
        max_redemptions: body.max_redemptions ?? null,
        times_redeemed: 0,
        expires_at: body.expires_at ?? null,
        product_ids: JSON.stringify(body.product_ids ?? []),
        created_at: nowIso(),
      };
      try {
        await insertCoupon(db, row);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        throw invalidRequest(`This store already has a coupon with the code '${code}'.`, 'code');
      }
      return reply.code(201).send(toCoupon(row));
    },
  );

  app.get(
    '/coupons/:id',
    {
      config: { scope: 'coupons:read' },
      schema: {
        tags,
        operationId: 'getCoupon',
        summary: 'Retrieve a coupon',
        params: IdParams,
        response: { 200: Coupon, ...errorResponses(404) },
      },
    },
    async (request) => toCoupon(await couponOr404(db, request.auth.storeId, request.params.id)),
  );

  app.patch(
    '/coupons/:id',
    {
      config: { scope: 'coupons:write' },
      schema: {
        tags,
        operationId: 'updateCoupon',
        summary: 'Change a coupon’s activity, limit, expiry or products (not its code or discount)',
        params: IdParams,
        body: UpdateCouponBody,
        response: { 200: Coupon, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const { storeId } = request.auth;
      const body = request.body;
      return db.transaction().execute(async (trx) => {
        const row = await couponOr404(trx, storeId, request.params.id);
        await checkEditable(trx, storeId, body);
        if (body.max_redemptions != null && body.max_redemptions < row.times_redeemed) {
          throw invalidRequest(
            `max_redemptions cannot be below times_redeemed (${row.times_redeemed}).`,
            'max_redemptions',
          );
        }
        const changes: Partial<CouponsTable> = {
          ...(body.active !== undefined && { active: fromBool(body.active) }),
          ...(body.max_redemptions !== undefined && { max_redemptions: body.max_redemptions }),
          ...(body.expires_at !== undefined && { expires_at: body.expires_at }),
          ...(body.product_ids !== undefined && { product_ids: JSON.stringify(body.product_ids) }),
        };
        return toCoupon(await updateCoupon(trx, row, changes));
      });
    },
  );

  app.post(
    '/coupons/:id/archive',
    {
      config: { scope: 'coupons:write' },
      schema: {
        tags,
        operationId: 'archiveCoupon',
        summary: 'Archive a coupon (idempotent): it becomes inactive and is refused on the page',
        params: IdParams,
        response: { 200: Coupon, ...errorResponses(404) },
      },
    },
    async (request) => {
      const row = await couponOr404(db, request.auth.storeId, request.params.id);
      return toCoupon(await updateCoupon(db, row, { active: 0 }));
    },
  );
}
