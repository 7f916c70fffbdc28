import { DateTime } from '../views/components.js';
import { Type } from '@sinclair/typebox';
import { formatBrl } from '../../../platform/values/money.js';
import { toBool } from '../../../platform/db/schema.js';
import type { OrdersTable, RecoveryEmailStatus } from '../../../domain/orders/order-object.js';
import type { OrderStatus } from '../../../domain/kernel/order-status.js';
import { listOrdersQuery } from '../../../domain/orders/orders-repository.js';
import { findStore } from '../../../domain/stores/stores.js';
import { defineScreen, guard, member, sendPage } from '../shell/page.js';
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

const Query = Type.Object({
  ...listQuery(STATUS_LABELS),
});

function OrdersTableView(props: { orders: OrdersTable[]; products: Map<string, string> }) {
  return (
    <ListTable
      label="Pedidos"
      columns={['Data', 'Cliente', 'Produto', 'Valor', 'Status', 'E-mail de recuperação']}
    >
      {props.orders.map((order) => (
        <tr>
          <td data-label="Data">
            <DateTime iso={order.created_at} />
          </td>
          <CustomerCell label="Cliente" customer={order.customer} />
          <td data-label="Produto">{props.products.get(order.product_id) ?? '—'}</td>
          <td data-label="Valor">{formatBrl(order.amount_cents)}</td>
          <td data-label="Status">
            {STATUS_LABELS[order.status]}
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
 * first, read with the same query as `GET /orders`.
 */
export const ordersScreen = defineScreen('orders', async (app, services) => {
  const { db } = app;
  app.get('/pedidos', guard('viewer', { querystring: Query }), async (request, reply) => {
    const { storeId } = member(request);
    const status = (request.query.status || undefined) as OrderStatus | undefined;
    const store = await findStore(db, storeId);
    const livemode = store?.checkout_mode === 'live';
    const { rows, next } = await readListPage(
      listOrdersQuery(db, { storeId, livemode }, { status }),
      'orders',
      request.query.antes,
    );
    const products = await productNames(
      db,
      storeId,
      rows.map((row) => row.product_id),
    );
    return sendPage(request, reply, services, {
      title: 'Pedidos',
      nav: 'orders',
      body: (
        <>
          <StatusFilter action={PATH} labels={STATUS_LABELS} selected={status} />
          {livemode ? null : (
            <p class="mode-note" role="note">
              A loja está em modo de teste: estes são os pedidos de teste.
            </p>
          )}
          {rows.length === 0 ? (
            <p>Nenhum pedido{status ? ' com este status' : ''}.</p>
          ) : (
            <OrdersTableView orders={rows} products={products} />
          )}
          <OlderPage action={PATH} status={status} next={next} />
        </>
      ),
    });
  });
});
