import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { COUPON_ID_PATTERN, toCoupon } from '../../../domain/coupons/coupon-object.js';
import type { Coupon, CouponsTable } from '../../../domain/coupons/coupon-object.js';
import { archiveCoupon, createCoupon, editCoupon } from '../../../domain/coupons/coupon-service.js';
import { findCoupon, listCouponsQuery } from '../../../domain/coupons/coupons-repository.js';
import { productsBy } from '../../../domain/catalogue/products-repository.js';
import { roleAllows } from '../../../domain/accounts/roles.js';
import { changeCheckout, settingsOf } from '../../../domain/checkouts/checkout-service.js';
import { findCheckout } from '../../../domain/checkouts/checkouts-repository.js';
import { readCouponReach } from '../../../flows/read-coupon-reach.js';
import { isUuid } from '../../../platform/values/ids.js';
import { storeWriteContext } from '../shell/store-write-context.js';
import { auditRequest } from '../shell/audit-request.js';
import type { AuditAction } from '../../../domain/accounts/audit.js';
import { DashboardError } from '../shell/dashboard-plugin.js';
import { changedFields, refusedForm } from '../shell/form-values.js';
import { defineScreen, guard, member, sendPage } from '../shell/page.js';
import { readListPage } from '../views/listing.js';
import { changeBody, COUPON_FIELD_ERRORS, CouponForm, couponValues, creationBody } from './coupon-form.js';
import type { CouponValues } from './coupon-form.js';
import { CouponPage, CouponsList, NewCouponForm, PATH } from './coupons-view.js';
import type { CouponFormState } from './coupons-view.js';
import { noticeOf } from '../shell/notices.js';

const NOTICES = {
  criado: 'Cupom criado.',
  salvo: 'Cupom salvo.',
  arquivado: 'Cupom arquivado: a página de compra passa a recusá-lo.',
  reativado: 'Cupom reativado.',
  campo: 'O checkout passou a mostrar o campo de cupom.',
} as const;

const NoticeParam = { aviso: Type.Optional(Type.String({ maxLength: 40 })) };
const ListQuery = Type.Object({ antes: Type.Optional(Type.String({ maxLength: 100 })), ...NoticeParam });
const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const NoticeQuery = Type.Object(NoticeParam);
const CsrfBody = Type.Object({ _csrf: Type.Optional(Type.String()) });
const ShowFieldBody = Type.Object({
  _csrf: Type.Optional(Type.String()),
  checkout_id: Type.String({ maxLength: 100 }),
  cupom: Type.Optional(Type.String({ maxLength: 100 })),
});

const refusal = (error: unknown, values: CouponValues) =>
  refusedForm(error, values, COUPON_FIELD_ERRORS, 'code');

/**
 * Cupons: the store's coupons, newest first, 50 a page; editors and owners create them, change their
 * limit, validity and products, archive and reactivate them through the API's coupon service (same
 * rules), recorded in the owners' audit log. Viewers read.
 */
export const couponsScreen = defineScreen('coupons', async (app, services) => {
  const { db } = app;

  /** The coupon's audit entry; `trx` is the change's transaction. */
  const record = (
    trx: Kysely<Database>,
    request: FastifyRequest,
    action: AuditAction,
    coupon: Coupon,
    detail = '',
  ) => auditRequest(trx, request, action, `${coupon.code}${detail}`);

  async function couponOr404(request: FastifyRequest, id: string): Promise<CouponsTable> {
    const row = COUPON_ID_PATTERN.test(id) ? await findCoupon(db, member(request).storeId, id) : undefined;
    if (!row) throw new DashboardError(404, 'Este cupom não existe nesta loja.');
    return row;
  }

  const showNew = (request: FastifyRequest, reply: FastifyReply, state: CouponFormState, status = 200) =>
    sendPage(request, reply, services, {
      title: 'Novo cupom',
      nav: 'coupons',
      status,
      body: (
        <>
          <p>
            <a href={PATH}>Voltar para Cupons</a>
          </p>
          <NewCouponForm state={state} />
        </>
      ),
    });

  async function showCoupon(
    request: FastifyRequest,
    reply: FastifyReply,
    row: CouponsTable,
    extra: { notice?: string | null; state?: CouponFormState },
    status = 200,
  ) {
    const session = member(request);
    const coupon = toCoupon(row);
    const found = new Map(
      (await productsBy(db, session.storeId, 'id', coupon.product_ids)).map((row) => [row.id, row]),
    );
    // In the coupon's own order.
    const products = coupon.product_ids.flatMap((id) => found.get(id) ?? []);
    return sendPage(request, reply, services, {
      title: `Cupom ${coupon.code}`,
      nav: 'coupons',
      status,
      body: (
        <CouponPage
          coupon={row}
          reach={await readCouponReach(db, session.storeId, coupon.product_ids)}
          productNames={products.map((product) => `${product.nome} (${product.codigo})`)}
          canEdit={roleAllows(session.role, 'editor')}
          notice={extra.notice ?? null}
          state={
            extra.state ?? {
              values: couponValues(
                coupon,
                products.map((product) => product.codigo),
                session.storeTimezone,
              ),
              errors: {},
            }
          }
        />
      ),
    });
  }

  app.get('/cupons', guard('viewer', { querystring: ListQuery }), async (request, reply) => {
    const session = member(request);
    const { rows, next } = await readListPage(
      listCouponsQuery(db, session.storeId),
      'coupons',
      request.query.antes,
    );
    return sendPage(request, reply, services, {
      title: 'Cupons',
      nav: 'coupons',
      body: (
        <CouponsList
          rows={rows}
          reach={await readCouponReach(db, session.storeId, [])}
          next={next}
          canEdit={roleAllows(session.role, 'editor')}
          notice={noticeOf(NOTICES, request.query.aviso)}
        />
      ),
    });
  });

  // Turns the coupon field on in a checkout, through the checkout service as the editor of
  // Checkouts would (`checkout.updated`, audited in the same transaction), and comes back.
  app.post('/cupons/mostrar-campo', guard('editor', { body: ShowFieldBody }), async (request, reply) => {
    const { storeId } = member(request);
    const { checkout_id, cupom } = request.body;
    const ctx = await storeWriteContext(db, request);
    await db.transaction().execute(async (trx) => {
      const row = isUuid(checkout_id) ? await findCheckout(trx, storeId, checkout_id) : undefined;
      if (!row || row.archived === 1) throw new DashboardError(404, 'Checkout não encontrado.');
      if (settingsOf(row).checkout_cupom_enabled) return;
      await changeCheckout(trx, ctx, row, { settings_json: { checkout_cupom_enabled: true } });
      await auditRequest(trx, request, 'checkout_updated', `${row.name}; checkout_cupom_enabled`);
    });
    const back = cupom && COUPON_ID_PATTERN.test(cupom) ? `${PATH}/${cupom}` : PATH;
    return reply.redirect(`${back}?aviso=campo#campo-de-cupom`, 303);
  });

  app.get('/cupons/novo', guard('editor'), async (request, reply) =>
    showNew(request, reply, { values: {}, errors: {} }),
  );

  app.post('/cupons', guard('editor', { body: CouponForm }), async (request, reply) => {
    const { storeId, storeTimezone } = member(request);
    const { _csrf, ...values } = request.body;
    let coupon: Coupon;
    try {
      const body = await creationBody(db, storeId, storeTimezone, request.body);
      coupon = await db.transaction().execute(async (trx) => {
        const created = await createCoupon(trx, storeId, body);
        await record(trx, request, 'coupon_created', created);
        return created;
      });
    } catch (error) {
      return showNew(request, reply, refusal(error, values), 400);
    }
    return reply.redirect(`${PATH}/${coupon.id}?aviso=criado`, 303);
  });

  app.get(
    '/cupons/:id',
    guard('viewer', { params: IdParams, querystring: NoticeQuery }),
    async (request, reply) =>
      showCoupon(request, reply, await couponOr404(request, request.params.id), {
        notice: noticeOf(NOTICES, request.query.aviso),
      }),
  );

  app.post('/cupons/:id', guard('editor', { params: IdParams, body: CouponForm }), async (request, reply) => {
    const row = await couponOr404(request, request.params.id);
    const before = toCoupon(row);
    const { _csrf, ...values } = request.body;
    let coupon: Coupon;
    try {
      const body = await changeBody(db, before, row.store_id, member(request).storeTimezone, request.body);
      coupon = await editCoupon(db, row.store_id, row.id, body, async (trx, { after }) => {
        const changed = changedFields(before, after);
        if (changed.length > 0)
          await record(trx, request, 'coupon_updated', after, `: ${changed.join(', ')}`);
      });
    } catch (error) {
      return showCoupon(request, reply, row, { state: refusal(error, values) }, 400);
    }
    return reply.redirect(`${PATH}/${coupon.id}?aviso=salvo`, 303);
  });

  app.post(
    '/cupons/:id/arquivar',
    guard('editor', { params: IdParams, body: CsrfBody }),
    async (request, reply) => {
      const row = await couponOr404(request, request.params.id);
      await db.transaction().execute(async (trx) => {
        const coupon = await archiveCoupon(trx, row.store_id, row.id);
        if (row.active === 1) await record(trx, request, 'coupon_archived', coupon);
      });
      return reply.redirect(`${PATH}/${row.id}?aviso=arquivado`, 303);
    },
  );

  app.post(
    '/cupons/:id/reativar',
    guard('editor', { params: IdParams, body: CsrfBody }),
    async (request, reply) => {
      const row = await couponOr404(request, request.params.id);
      await editCoupon(db, row.store_id, row.id, { active: true }, async (trx, { before, after }) => {
        if (before.active === 0) await record(trx, request, 'coupon_reactivated', after);
      });
      return reply.redirect(`${PATH}/${row.id}?aviso=reativado`, 303);
    },
  );
});
