import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { fromBool } from '../../platform/db/schema.js';
import { IdParams, ListEnvelope, errorResponses } from '../../platform/http/schemas.js';
import { Coupon, toCoupon } from '../../domain/coupons/coupon-object.js';
import { CreateCouponBody, ListCouponsQuery, UpdateCouponBody } from '../../domain/coupons/coupon-schemas.js';
import { archiveCoupon, couponOr404, createCoupon, editCoupon } from '../../domain/coupons/coupon-service.js';
import { listCouponsQuery } from '../../domain/coupons/coupons-repository.js';

export async function couponsRoutes(parent: FastifyInstance): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app;
  const tags = ['Coupons'];

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
    async (request, reply) =>
      reply.code(201).send(await createCoupon(db, request.auth.storeId, request.body)),
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
    async (request) => editCoupon(db, request.auth.storeId, request.params.id, request.body),
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
    async (request) => archiveCoupon(db, request.auth.storeId, request.params.id),
  );
}
