import { Type } from '@sinclair/typebox';
import { formatBrl } from '../../../platform/values/money.js';
import { ApiError } from '../../../platform/http/api-error.js';
import type { Customer } from '../../../domain/kernel/customer.js';
import { findStore } from '../../../domain/stores/stores.js';
import { cancelSubscription } from '../../../flows/cancel-subscription.js';
import { simulateExpiration, simulatePayment } from '../../../flows/simulate-payment.js';
import {
  simulateBuyerCancel,
  simulateFailure,
  simulateRenewal,
} from '../../../flows/simulate-subscription.js';
import { findCharge } from '../../../domain/pix/pix-charges-repository.js';
import { effectiveStatus } from '../../../domain/pix/pix-charge-object.js';
import { SubscriptionPage, SUBSCRIPTION_SIMULATIONS, simulationsFor } from './subscription-view.js';
import type { SubscriptionSimulation } from './subscription-view.js';
import { PER_PERIOD } from '../../../domain/subscriptions/periods.js';
import type {
  SubscriptionStatus,
  SubscriptionsTable,
} from '../../../domain/subscriptions/subscription-object.js';
import type { SubscriptionScope } from '../../../domain/subscriptions/subscriptions-repository.js';
import {
  findSubscription,
  listCycles as cyclesOf,
  listSubscriptionSales as subscriptionSales,
  listSubscriptionsQuery,
} from '../../../domain/subscriptions/subscriptions-repository.js';
import { personActor } from '../shell/audit-request.js';
import { DashboardError } from '../shell/dashboard-plugin.js';
import { defineScreen, guard, member, sendPage } from '../shell/page.js';
import { Notice, PostForm } from '../views/components.js';
import { formatDate } from '../views/format.js';
import {
  CustomerCell,
  ListTable,
  listQuery,
  OlderPage,
  StatusFilter,
  productNames,
  readListPage,
} from '../views/listing.js';
import { noticeOf } from '../shell/notices.js';

const PATH = '/dashboard/assinaturas';

const STATUS_LABELS: Record<SubscriptionStatus, string> = {
  pending: 'Pendente',
  active: 'Ativa',
  past_due: 'Em atraso',
  canceled: 'Cancelada',
  expired: 'Expirada',
};

/** What the cancel service may still end (the others are over). */
const CANCELABLE: readonly SubscriptionStatus[] = ['pending', 'active', 'past_due'];

/** What a redirect after a cancel says; the query names one of these, never free text. */
const NOTICES = {
  cancelada: { kind: 'ok', text: 'Assinatura cancelada.' },
  encerrada: { kind: 'error', text: 'Esta assinatura já estava encerrada.' },
} as const;

const Query = Type.Object({
  ...listQuery(STATUS_LABELS),
  aviso: Type.Optional(Type.String({ maxLength: 20 })),
});

/** "R$ 49,90 por mês". */
const perPeriod = (row: SubscriptionsTable) =>
  `${formatBrl(row.amount_cents)} ${PER_PERIOD[row.recorrencia]}`;

const Params = Type.Object({ id: Type.String({ maxLength: 40 }) });
const PageQuery = Type.Object({ aviso: Type.Optional(Type.String({ maxLength: 30 })) });
const SimulationParams = Type.Object({
  id: Type.String({ maxLength: 40 }),
  acao: Type.Union(Object.keys(SUBSCRIPTION_SIMULATIONS).map((key) => Type.Literal(key))),
});

/** What a redirect after a simulation says on the subscription's page. */
const PAGE_NOTICES: Record<string, { kind: 'ok' | 'error'; text: string }> = {
  ...Object.fromEntries(
    Object.entries(SUBSCRIPTION_SIMULATIONS).map(([key, { done }]) => [key, { kind: 'ok', text: done }]),
  ),
  recusada: { kind: 'error', text: 'Esta simulação não se aplica à assinatura como ela está agora.' },
};

function SubscriptionsTableView(props: {
  subscriptions: SubscriptionsTable[];
  products: Map<string, string>;
  owner: boolean;
}) {
  return (
    <ListTable
      label="Assinaturas"
      columns={['Cliente', 'Produto', 'Valor', 'Status', 'Próxima cobrança', props.owner ? 'Ações' : null]}
    >
      {props.subscriptions.map((subscription) => (
        <tr>
          <CustomerCell label="Cliente" customer={subscription.customer} />
          <td data-label="Produto">
            {/* The product opens the subscription's page (its cycles and sales). */}
            <a href={`${PATH}/${subscription.id}`}>{props.products.get(subscription.product_id) ?? '—'}</a>
          </td>
          <td data-label="Valor">{perPeriod(subscription)}</td>
          <td data-label="Status">{STATUS_LABELS[subscription.status]}</td>
          <td data-label="Próxima cobrança">
            {subscription.next_charge_date ? formatDate(subscription.next_charge_date) : '—'}
          </td>
          {props.owner ? (
            <td>
              {CANCELABLE.includes(subscription.status) ? (
                // Opens the confirmation page: nothing is canceled by this first click.
                <form method="get" action={`${PATH}/${subscription.id}/cancelar`}>
                  <button type="submit" class="button button-small">
                    Cancelar assinatura
                  </button>
                </form>
              ) : null}
            </td>
          ) : null}
        </tr>
      ))}
    </ListTable>
  );
}

/**
 * Assinaturas: the store's subscriptions of its current charging mode (as Início counts), newest
 * first; owners cancel one with the API's cancel service (reason merchant, `subscription.canceled`).
 */
export const subscriptionsScreen = defineScreen('subscriptions', async (app, services) => {
  const { db, config } = app;

  async function scopeOf(storeId: string): Promise<SubscriptionScope> {
    const store = await findStore(db, storeId);
    return { storeId, livemode: store?.checkout_mode === 'live' };
  }

  /** The store's subscription of the current mode; any other id (another store's too) is 404. */
  async function subscriptionOr404(scope: SubscriptionScope, id: string): Promise<SubscriptionsTable> {
    const row = await findSubscription(db, scope, id);
    if (!row) throw new DashboardError(404, 'Assinatura não encontrada.');
    return row;
  }

  app.get('/assinaturas', guard('viewer', { querystring: Query }), async (request, reply) => {
    const session = member(request);
    const status = (request.query.status || undefined) as SubscriptionStatus | undefined;
    const scope = await scopeOf(session.storeId);
    const { rows, next } = await readListPage(
      listSubscriptionsQuery(db, scope, { status }),
      'subscriptions',
      request.query.antes,
    );
    const products = await productNames(
      db,
      session.storeId,
      rows.map((row) => row.product_id),
    );
    const key = request.query.aviso;
    const notice = noticeOf(NOTICES, key);
    return sendPage(request, reply, services, {
      title: 'Assinaturas',
      nav: 'subscriptions',
      body: (
        <>
          {notice ? <Notice kind={notice.kind}>{notice.text}</Notice> : null}
          <StatusFilter action={PATH} labels={STATUS_LABELS} selected={status} />
          {scope.livemode ? null : (
            <p class="mode-note" role="note">
              A loja está em modo de teste: estas são as assinaturas de teste.
            </p>
          )}
          {rows.length === 0 ? (
            <p>Nenhuma assinatura{status ? ' com este status' : ''}.</p>
          ) : (
            <SubscriptionsTableView
              subscriptions={rows}
              products={products}
              owner={session.role === 'owner'}
            />
          )}
          <OlderPage action={PATH} status={status} next={next} />
        </>
      ),
    });
  });

  app.get(
    '/assinaturas/:id',
    guard('viewer', { params: Params, querystring: PageQuery }),
    async (request, reply) => {
      const session = member(request);
      const scope = await scopeOf(session.storeId);
      const row = await subscriptionOr404(scope, request.params.id);
      const charge = await findCharge(db, scope, row.first_charge_id);
      if (!charge) throw new Error(`subscription ${row.id} has no first charge`);
      const firstCharge = { ...charge, status: effectiveStatus(charge) };
      const products = await productNames(db, session.storeId, [row.product_id]);
      const key = request.query.aviso;
      const notice = key && key in PAGE_NOTICES ? PAGE_NOTICES[key] : null;
      return sendPage(request, reply, services, {
        title: 'Assinatura',
        nav: 'subscriptions',
        body: (
          <>
            {notice ? <Notice kind={notice.kind}>{notice.text}</Notice> : null}
            <SubscriptionPage
              row={row}
              statusLabel={STATUS_LABELS[row.status]}
              perPeriod={perPeriod(row)}
              product={products.get(row.product_id) ?? '—'}
              firstCharge={firstCharge}
              cycles={await cyclesOf(db, row.id)}
              sales={await subscriptionSales(db, scope, row.id)}
              simulations={
                scope.livemode || session.role === 'viewer'
                  ? []
                  : simulationsFor(row, firstCharge.status === 'pending')
              }
              canCancel={session.role === 'owner' && CANCELABLE.includes(row.status)}
              base={PATH}
            />
          </>
        ),
      });
    },
  );

  app.post(
    '/assinaturas/:id/simular/:acao',
    guard('editor', { params: SimulationParams }),
    async (request, reply) => {
      const session = member(request);
      const scope = await scopeOf(session.storeId);
      // Live subscriptions are billed by the buyer's bank: the simulations are test mode's, as in the API.
      if (scope.livemode) throw new DashboardError(404, 'Assinatura não encontrada.');
      const row = await subscriptionOr404(scope, request.params.id);
      const acao = request.params.acao as SubscriptionSimulation;
      const back = `${PATH}/${row.id}`;
      try {
        if (acao === 'pagamento' || acao === 'expiracao') {
          const charge = await findCharge(db, scope, row.first_charge_id);
          if (!charge || row.status !== 'pending') return reply.redirect(`${back}?aviso=recusada`, 303);
          if (acao === 'pagamento') await simulatePayment(db, charge, config);
          else await simulateExpiration(db, charge);
        } else if (acao === 'renovacao') await simulateRenewal(db, app.payments, row, config);
        else if (acao === 'falha') await simulateFailure(db, app.payments, row);
        else await simulateBuyerCancel(db, row);
      } catch (error) {
        // The flow's 400: the subscription (or its charge) is not in a state the simulation applies to.
        if (error instanceof ApiError && error.statusCode === 400)
          return reply.redirect(`${back}?aviso=recusada`, 303);
        throw error;
      }
      return reply.redirect(`${back}?aviso=${acao}`, 303);
    },
  );

  app.get('/assinaturas/:id/cancelar', guard('owner', { params: Params }), async (request, reply) => {
    const session = member(request);
    const row = await subscriptionOr404(await scopeOf(session.storeId), request.params.id);
    const customer = JSON.parse(row.customer) as Customer;
    return sendPage(request, reply, services, {
      title: 'Cancelar assinatura',
      nav: 'subscriptions',
      body: (
        <section class="panel">
          <p>
            {`Cancelar a assinatura de ${customer.name ?? customer.email ?? row.id} (${perPeriod(row)})?`}{' '}
            Nenhuma cobrança será feita depois disso, e o cancelamento não pode ser desfeito.
          </p>
          <PostForm action={`${PATH}/${row.id}/cancelar`}>
            <button type="submit" class="button button-danger">
              Confirmar cancelamento
            </button>
          </PostForm>
          <p>
            <a href={PATH}>Voltar sem cancelar</a>
          </p>
        </section>
      ),
    });
  });

  app.post('/assinaturas/:id/cancelar', guard('owner', { params: Params }), async (request, reply) => {
    const session = member(request);
    const row = await subscriptionOr404(await scopeOf(session.storeId), request.params.id);
    try {
      await cancelSubscription(db, app.payments, row, config, personActor(request));
    } catch (error) {
      // The service's 400: the subscription had already ended (canceled or expired).
      if (error instanceof ApiError && error.statusCode === 400)
        return reply.redirect(`${PATH}?aviso=encerrada`, 303);
      throw error;
    }
    return reply.redirect(`${PATH}?aviso=cancelada`, 303);
  });
});
