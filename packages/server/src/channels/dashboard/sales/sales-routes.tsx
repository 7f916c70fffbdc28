import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { resendDeliveryEmail } from '../../../flows/queue-delivery-email.js';
import { saleRefusalInPortuguese } from './sale-refusals.js';
import { ApiError } from '../../../platform/http/api-error.js';
import { refundSale } from '../../../flows/refund-sale.js';
import { toSale } from '../../../domain/sales/sale-object.js';
import type { SalesTable } from '../../../domain/sales/sale-object.js';
import { findStore } from '../../../domain/stores/stores.js';
import { personActor } from '../shell/audit-request.js';
import { DashboardError } from '../shell/dashboard-plugin.js';
import { defineScreen, guard, member, sendPage } from '../shell/page.js';
import { formatBrl } from '../../../platform/values/money.js';
import { saleConversions } from '../../../domain/conversions/sale-conversions.js';
import { saleCardPayment, saleCharge, saleEvents, storeSale } from './sale-detail.js';
import { RefundConfirmPage, SalePage } from './sale-view.js';
import type { SaleNotice } from './sale-view.js';
import { salesCsv } from './sales-csv.js';
import { EXCEL_CSV, STANDARD_CSV } from './sales-csv-formats.js';
import { cursorOf, filteredSales, nameSearchFloor, productChoices, SalesQuery } from './sales-filter.js';
import type { SalesScope } from './sales-filter.js';
import { SalesListPage } from './sales-list-view.js';

/** Sales a page of Vendas shows. */
export const SALES_PAGE_SIZE = 50;

const SaleParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const DONE = { reembolso: 'Venda reembolsada.', email: 'E-mail de entrega na fila para reenvio.' } as const;
const SaleQuery = Type.Object({
  feito: Type.Optional(Type.Union([Type.Literal('reembolso'), Type.Literal('email')])),
});

/** Vendas: the list with its filters, the CSV export, a sale's page, its refund and e-mail resend. */
export const salesScreen = defineScreen('sales', async (app, services) => {
  const { db } = app;

  /** The sales a request lists: its store's, of the store's current mode, days in the store's zone. */
  async function scopeOf(request: FastifyRequest): Promise<SalesScope> {
    const { storeId, storeTimezone } = member(request);
    const livemode = (await findStore(db, storeId))?.checkout_mode === 'live';
    return { storeId, livemode, timeZone: storeTimezone };
  }

  async function saleOr404(request: FastifyRequest, id: string): Promise<SalesTable> {
    const row = await storeSale(db, member(request).storeId, id);
    if (!row) throw new DashboardError(404, 'Esta venda não existe nesta loja.');
    return row;
  }

  async function salePage(
    request: FastifyRequest,
    reply: FastifyReply,
    row: SalesTable,
    notice: SaleNotice | null,
    status = 200,
  ) {
    const [charge, cardPayment, events, conversions, product] = await Promise.all([
      saleCharge(db, row),
      saleCardPayment(db, row),
      saleEvents(db, row),
      saleConversions(db, row),
      row.product_id === null
        ? undefined
        : db
            .selectFrom('products')
            .select('nome')
            .where('store_id', '=', row.store_id)
            .where('id', '=', row.product_id)
            .executeTakeFirst(),
    ]);
    return sendPage(request, reply, services, {
      title: `Venda de ${formatBrl(row.amount_cents)}`,
      nav: 'sales',
      status,
      body: (
        <SalePage
          sale={toSale(row)}
          productName={product?.nome ?? null}
          charge={charge}
          cardPayment={cardPayment}
          chargedBackAt={row.charged_back_at ?? null}
          events={events}
          conversions={conversions}
          notice={notice}
        />
      ),
    });
  }

  /** A service's refusal (already refunded, no SMTP…) is shown on the sale's page, never a 500. */
  async function refusal(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    lead: string,
    error: unknown,
  ) {
    if (!(error instanceof ApiError)) throw error;
    const row = await saleOr404(request, id);
    return salePage(
      request,
      reply,
      row,
      { kind: 'error', text: `${lead} ${saleRefusalInPortuguese(error)}` },
      error.statusCode,
    );
  }

  app.get('/vendas', guard('viewer', { querystring: SalesQuery }), async (request, reply) => {
    const { storeId } = member(request);
    const query = request.query;
    // Independent reads side by side: on PostgreSQL each is a round trip.
    const [cursor, scope, products] = await Promise.all([
      query.antes ? cursorOf(db, storeId, query.antes) : null,
      scopeOf(request),
      productChoices(db, storeId),
    ]);
    if (query.antes && !cursor) throw new DashboardError(400, 'Esta página da lista não existe mais.');
    const floor = await nameSearchFloor(db, scope, query, cursor);
    const rows = await filteredSales(db, scope, query, cursor, SALES_PAGE_SIZE + 1, floor);
    const sales = rows.slice(0, SALES_PAGE_SIZE);
    // A full page continues after its last sale; a name search that reached its floor, after the floor.
    const nextAfter = rows.length > SALES_PAGE_SIZE ? sales[sales.length - 1]!.id : (floor?.id ?? null);
    return sendPage(request, reply, services, {
      title: 'Vendas',
      nav: 'sales',
      body: (
        <SalesListPage
          query={query}
          products={products}
          sales={sales}
          nextAfter={nextAfter}
          searchedUpTo={floor && rows.length <= SALES_PAGE_SIZE ? floor.created_at : null}
          livemode={scope.livemode}
        />
      ),
    });
  });

  // The same filters as the list; the page cursor is not one (the export is every row of the filter).
  // `vendas.csv` is the documented "CSV padrão"; `vendas-excel.csv` the file Excel in Brazil opens.
  for (const [path, format, filename] of [
    ['/vendas.csv', STANDARD_CSV, 'vendas.csv'],
    ['/vendas-excel.csv', EXCEL_CSV, 'vendas-excel.csv'],
  ] as const)
    app.get(path, guard('viewer', { querystring: SalesQuery }), async (request, reply) => {
      const scope = await scopeOf(request);
      return reply
        .headers({
          'content-type': 'text/csv; charset=utf-8',
          'content-disposition': `attachment; filename="${filename}"`,
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
        })
        .send(salesCsv(db, scope, { ...request.query, antes: undefined }, format));
    });

  app.get(
    '/vendas/:id',
    guard('viewer', { params: SaleParams, querystring: SaleQuery }),
    async (request, reply) => {
      const row = await saleOr404(request, request.params.id);
      const done = request.query.feito;
      return salePage(request, reply, row, done ? { kind: 'ok', text: DONE[done] } : null);
    },
  );

  app.get('/vendas/:id/reembolso', guard('owner', { params: SaleParams }), async (request, reply) => {
    const row = await saleOr404(request, request.params.id);
    return sendPage(request, reply, services, {
      title: 'Reembolsar venda',
      nav: 'sales',
      body: <RefundConfirmPage sale={toSale(row)} />,
    });
  });

  app.post('/vendas/:id/reembolso', guard('owner', { params: SaleParams }), async (request, reply) => {
    const row = await saleOr404(request, request.params.id);
    try {
      await refundSale(db, app.payments, row, personActor(request), app.config);
    } catch (error) {
      return refusal(request, reply, row.id, 'Não foi possível reembolsar:', error);
    }
    return reply.redirect(`/dashboard/vendas/${row.id}?feito=reembolso`, 303);
  });

  app.post('/vendas/:id/reenviar-email', guard('editor', { params: SaleParams }), async (request, reply) => {
    const row = await saleOr404(request, request.params.id);
    try {
      await resendDeliveryEmail(db, row, app.config, personActor(request));
    } catch (error) {
      return refusal(request, reply, row.id, 'Não foi possível reenviar o e-mail:', error);
    }
    return reply.redirect(`/dashboard/vendas/${row.id}?feito=email`, 303);
  });
});
