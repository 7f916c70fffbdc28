import { CopyField, DateTime, Notice, PostForm } from '../views/components.js';
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { formatBrl } from '../../../platform/values/money.js';
import { ApiError } from '../../../platform/http/api-error.js';
import { nowIso } from '../../../platform/values/time.js';
import { toBool } from '../../../platform/db/schema.js';
import type { Database } from '../../../platform/db/schema.js';
import type { OrdersTable, RecoveryEmailStatus } from '../../../domain/orders/order-object.js';
import type { OrderStatus } from '../../../domain/kernel/order-status.js';
import { UNPAID } from '../../../domain/kernel/order-status.js';
import type { Customer } from '../../../domain/kernel/customer.js';
import { orderUrl } from '../../../domain/orders/order-links.js';
import { findScopedOrder, listOrdersQuery } from '../../../domain/orders/orders-repository.js';
import type { OrderScope } from '../../../domain/orders/orders-repository.js';
import { findCharge } from '../../../domain/pix/pix-charges-repository.js';
import { effectiveStatus } from '../../../domain/pix/pix-charge-object.js';
import type { SalesTable } from '../../../domain/sales/sale-object.js';
import { findStore } from '../../../domain/stores/stores.js';
import { abandonOrder } from '../../../flows/abandon-orders.js';
import { simulateExpiration, simulatePayment } from '../../../flows/simulate-payment.js';
import { DashboardError } from '../shell/dashboard-plugin.js';
import { defineScreen, guard, member, sendPage } from '../shell/page.js';
import { SALE_STATUS_LABELS } from '../views/format.js';
import { Detail } from '../views/details.js';
import {
  CustomerCell,
  ListTable,
  listQuery,
  OlderPage,
  StatusFilter,
  productNames,
  readListPage,
} from '../views/listing.js';

const PATH = '/dashboard/pedidos';

const STATUS_LABELS: Record<OrderStatus, string> = {
  pending: 'Pendente',
  paid: 'Pago',
  abandoned: 'Abandonado',
  canceled: 'Cancelado',
};

const RECOVERY_LABELS: Record<RecoveryEmailStatus, string> = {
  pending: 'Pendente',
  sent: 'Enviado',
  failed: 'Falhou',
  skipped: 'Ignorado',
};

/** Test mode's stand-ins, as the API has them: the order abandoned now, its Pix paid or expired. */
const SIMULATIONS = {
  abandono: { label: 'Simular abandono', done: 'Abandono simulado.' },
  pagamento: { label: 'Simular pagamento do Pix', done: 'Pagamento simulado.' },
  expiracao: { label: 'Simular expiração do Pix', done: 'Expiração simulada.' },
} as const;
type Simulation = keyof typeof SIMULATIONS;

/** What a redirect after a simulation says; the query names one of these, never free text. */
const NOTICES: Record<string, { kind: 'ok' | 'error'; text: string }> = {
  ...Object.fromEntries(
    Object.entries(SIMULATIONS).map(([key, { done }]) => [key, { kind: 'ok', text: done }]),
  ),
  recusada: { kind: 'error', text: 'Esta simulação não se aplica ao pedido como ele está agora.' },
};

const Query = Type.Object({
  ...listQuery(STATUS_LABELS),
});
const Params = Type.Object({ id: Type.String({ maxLength: 40 }) });
const PageQuery = Type.Object({ aviso: Type.Optional(Type.String({ maxLength: 20 })) });
const SimulationParams = Type.Object({
  id: Type.String({ maxLength: 40 }),
  acao: Type.Union(Object.keys(SIMULATIONS).map((key) => Type.Literal(key))),
});

/** A paid order whose sale was refunded reads "Reembolsado", not "Pago". */
function statusLabel(order: OrdersTable, sale: Pick<SalesTable, 'status'> | undefined): string {
  return order.status === 'paid' && sale?.status === 'refunded' ? 'Reembolsado' : STATUS_LABELS[order.status];
}

/** The sales of these orders, by id (an order has at most one). */
async function salesOf(db: Kysely<Database>, storeId: string, ids: (string | null)[]) {
  const wanted = ids.filter((id): id is string => id !== null);
  if (wanted.length === 0) return new Map<string, SalesTable>();
  const rows = await db
    .selectFrom('sales')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', 'in', wanted)
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

function OrdersTableView(props: {
  orders: OrdersTable[];
  products: Map<string, string>;
  sales: Map<string, SalesTable>;
}) {
  return (
    <ListTable
      label="Pedidos"
      columns={['Data', 'Cliente', 'Produto', 'Valor', 'Status', 'E-mail de recuperação']}
    >
      {props.orders.map((order) => (
        <tr>
          <td data-label="Data">
            {/* The date opens the order's page. */}
            <a href={`${PATH}/${order.id}`}>
              <DateTime iso={order.created_at} />
            </a>
          </td>
          <CustomerCell label="Cliente" customer={order.customer} />
          <td data-label="Produto">{props.products.get(order.product_id) ?? '—'}</td>
          <td data-label="Valor">{formatBrl(order.amount_cents)}</td>
          <td data-label="Status">
            {statusLabel(order, order.sale_id ? props.sales.get(order.sale_id) : undefined)}
            {toBool(order.recovered) ? (
              <>
                {' '}
                <span class="badge">Recuperado</span>
              </>
            ) : null}
          </td>
          <td data-label="E-mail de recuperação">
            {order.recovery_email_status ? RECOVERY_LABELS[order.recovery_email_status] : '—'}
          </td>
        </tr>
      ))}
    </ListTable>
  );
}

/**
 * Pedidos: the purchase-page orders of the store's current charging mode (as Início counts), newest
 * first, read with the same query as `GET /orders`; each opens its page (fields, sale, payment link,
 * and in test mode the API's simulations for editors and owners).
 */
export const ordersScreen = defineScreen('orders', async (app, services) => {
  const { db, config } = app;

  async function scopeOf(storeId: string): Promise<OrderScope> {
    const store = await findStore(db, storeId);
    return { storeId, livemode: store?.checkout_mode === 'live' };
  }

  /** The store's order of the current mode; any other id (another store's too) is 404. */
  async function orderOr404(scope: OrderScope, id: string): Promise<OrdersTable> {
    const row = await findScopedOrder(db, scope, id);
    if (!row) throw new DashboardError(404, 'Pedido não encontrado.');
    return row;
  }

  app.get('/pedidos', guard('viewer', { querystring: Query }), async (request, reply) => {
    const { storeId } = member(request);
    const status = (request.query.status || undefined) as OrderStatus | undefined;
    const scope = await scopeOf(storeId);
    const { rows, next } = await readListPage(
      listOrdersQuery(db, scope, { status }),
      'orders',
      request.query.antes,
    );
    const products = await productNames(
      db,
      storeId,
      rows.map((row) => row.product_id),
    );
    const sales = await salesOf(
      db,
      storeId,
      rows.map((row) => row.sale_id),
    );
    return sendPage(request, reply, services, {
      title: 'Pedidos',
      nav: 'orders',
      body: (
        <>
          <StatusFilter action={PATH} labels={STATUS_LABELS} selected={status} />
          {scope.livemode ? null : (
            <p class="mode-note" role="note">
              A loja está em modo de teste: estes são os pedidos de teste.
            </p>
          )}
          {rows.length === 0 ? (
            <p>Nenhum pedido{status ? ' com este status' : ''}.</p>
          ) : (
            <OrdersTableView orders={rows} products={products} sales={sales} />
          )}
          <OlderPage action={PATH} status={status} next={next} />
        </>
      ),
    });
  });

  app.get(
    '/pedidos/:id',
    guard('viewer', { params: Params, querystring: PageQuery }),
    async (request, reply) => {
      const session = member(request);
      const scope = await scopeOf(session.storeId);
      const order = await orderOr404(scope, request.params.id);
      const products = await productNames(db, session.storeId, [order.product_id]);
      const sale = (await salesOf(db, session.storeId, [order.sale_id])).get(order.sale_id ?? '');
      const charge = order.pix_charge_id ? await findCharge(db, scope, order.pix_charge_id) : undefined;
      const chargePending = charge !== undefined && effectiveStatus(charge) === 'pending';
      const customer = JSON.parse(order.customer) as Customer;
      const link = UNPAID.includes(order.status) ? orderUrl(config, order) : null;
      const key = request.query.aviso;
      const notice = key && key in NOTICES ? NOTICES[key] : null;
      const simulations: Simulation[] = [
        ...(order.status === 'pending' ? (['abandono'] as const) : []),
        ...(chargePending ? (['pagamento', 'expiracao'] as const) : []),
      ];
      return sendPage(request, reply, services, {
        title: 'Pedido',
        nav: 'orders',
        body: (
          <>
            {notice ? <Notice kind={notice.kind}>{notice.text}</Notice> : null}
            <p>
              <a href={PATH}>Voltar para Pedidos</a>
            </p>
            <section class="panel" aria-labelledby="pedido-dados">
              <h2 id="pedido-dados">Dados do pedido</h2>
              <dl class="facts">
                <Detail term="Data">
                  <DateTime iso={order.created_at} />
                </Detail>
                <Detail term="Status">
                  {statusLabel(order, sale)}
                  {toBool(order.recovered) ? ' (recuperado)' : ''}
                </Detail>
                <Detail term="Cliente">{customer.name ?? '—'}</Detail>
                <Detail term="E-mail">{customer.email ?? '—'}</Detail>
                <Detail term="Produto">{products.get(order.product_id) ?? '—'}</Detail>
                <Detail term="Valor">{formatBrl(order.amount_cents)}</Detail>
                {order.paid_at ? (
                  <Detail term="Pago em">
                    <DateTime iso={order.paid_at} />
                  </Detail>
                ) : null}
                {order.abandoned_at ? (
                  <Detail term="Abandonado em">
                    <DateTime iso={order.abandoned_at} />
                  </Detail>
                ) : null}
                <Detail term="E-mail de recuperação">
                  {order.recovery_email_status ? RECOVERY_LABELS[order.recovery_email_status] : '—'}
                </Detail>
                <Detail term="Identificador">
                  <code>{order.id}</code>
                </Detail>
              </dl>
              {link ? (
                <CopyField
                  id="link-pagamento"
                  label="Link de pagamento"
                  value={link}
                  button="Copiar link de pagamento"
                />
              ) : null}
            </section>
            <section class="panel" aria-labelledby="pedido-venda">
              <h2 id="pedido-venda">Venda</h2>
              {sale ? (
                <ListTable label="Venda do pedido" columns={['Data', 'Valor', 'Status', '']}>
                  <tr>
                    <td>
                      <DateTime iso={sale.created_at} />
                    </td>
                    <td>{formatBrl(sale.amount_cents)}</td>
                    <td>{SALE_STATUS_LABELS[sale.status]}</td>
                    <td>
                      <a href={`/dashboard/vendas?q=${encodeURIComponent(customer.email ?? '')}`}>
                        Ver em Vendas
                      </a>
                    </td>
                  </tr>
                </ListTable>
              ) : (
                <p>Nenhuma venda: o pedido não foi pago.</p>
              )}
            </section>
            {!scope.livemode && session.role !== 'viewer' && simulations.length > 0 ? (
              <section class="panel" aria-labelledby="pedido-simular">
                <h2 id="pedido-simular">Simulações (modo de teste)</h2>
                {simulations.map((simulation) => (
                  <PostForm action={`${PATH}/${order.id}/simular/${simulation}`}>
                    <button type="submit" class="button button-small">
                      {SIMULATIONS[simulation].label}
                    </button>
                  </PostForm>
                ))}
              </section>
            ) : null}
          </>
        ),
      });
    },
  );

  app.post(
    '/pedidos/:id/simular/:acao',
    guard('editor', { params: SimulationParams }),
    async (request, reply) => {
      const session = member(request);
      const scope = await scopeOf(session.storeId);
      // Live orders are paid by real buyers: the simulations are test mode's, as in the API.
      if (scope.livemode) throw new DashboardError(404, 'Pedido não encontrado.');
      const order = await orderOr404(scope, request.params.id);
      const acao = request.params.acao as Simulation;
      const back = `${PATH}/${order.id}`;
      try {
        if (acao === 'abandono') {
          const abandoned = await abandonOrder(db, order, config, { at: nowIso(), emailNow: true });
          if (!abandoned) return reply.redirect(`${back}?aviso=recusada`, 303);
        } else {
          const charge = order.pix_charge_id ? await findCharge(db, scope, order.pix_charge_id) : undefined;
          if (!charge) return reply.redirect(`${back}?aviso=recusada`, 303);
          if (acao === 'pagamento') await simulatePayment(db, charge, config);
          else await simulateExpiration(db, charge);
        }
      } catch (error) {
        // The flow's 400: already paid, expired or canceled meanwhile.
        if (error instanceof ApiError && error.statusCode === 400)
          return reply.redirect(`${back}?aviso=recusada`, 303);
        throw error;
      }
      return reply.redirect(`${back}?aviso=${acao}`, 303);
    },
  );
});
