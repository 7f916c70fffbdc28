import { formatBrl } from '../../../platform/values/money.js';
import type { Customer } from '../../../domain/kernel/customer.js';
import type { PixChargeStatus, PixChargesTable } from '../../../domain/pix/pix-charge-object.js';
import type { SalesTable } from '../../../domain/sales/sale-object.js';
import type {
  CycleStatus,
  SubscriptionCyclesTable,
  SubscriptionsTable,
} from '../../../domain/subscriptions/subscription-object.js';
import { DateTime, PostForm } from '../views/components.js';
import { Detail } from '../views/details.js';
import { SALE_STATUS_LABELS, formatDate } from '../views/format.js';
import { ListTable } from '../views/listing.js';

const CYCLE_LABELS: Record<CycleStatus, string> = {
  sending: 'Enviando',
  scheduled: 'Agendada',
  paid: 'Paga',
  failed: 'Falhou',
  canceled: 'Cancelada',
};

const FIRST_CHARGE_LABELS: Record<PixChargeStatus, string> = {
  pending: 'Aguardando pagamento',
  paid: 'Paga',
  expired: 'Expirada',
  canceled: 'Cancelada',
};

const CANCEL_REASONS: Record<NonNullable<SubscriptionsTable['cancel_reason']>, string> = {
  buyer: 'pelo comprador',
  merchant: 'pela loja',
  psp: 'pelo PSP',
  payment_failed: 'por falta de pagamento',
};

/** Test mode's stand-ins for the buyer and their bank, as the API has them. */
export const SUBSCRIPTION_SIMULATIONS = {
  pagamento: { label: 'Simular pagamento da primeira cobrança', done: 'Pagamento simulado.' },
  expiracao: { label: 'Simular expiração da primeira cobrança', done: 'Expiração simulada.' },
  renovacao: { label: 'Simular renovação', done: 'Renovação simulada.' },
  falha: { label: 'Simular falha de pagamento', done: 'Falha simulada.' },
  'cancelamento-comprador': {
    label: 'Simular cancelamento pelo comprador',
    done: 'Cancelamento pelo comprador simulado.',
  },
} as const;
export type SubscriptionSimulation = keyof typeof SUBSCRIPTION_SIMULATIONS;

/** The simulations that apply to a subscription as it now is (its first charge's state for a pending one). */
export function simulationsFor(
  row: SubscriptionsTable,
  firstChargePending: boolean,
): SubscriptionSimulation[] {
  if (row.status === 'pending') return firstChargePending ? ['pagamento', 'expiracao'] : [];
  if (row.status === 'active' || row.status === 'past_due')
    return ['renovacao', 'falha', 'cancelamento-comprador'];
  return [];
}

export interface SubscriptionPageData {
  row: SubscriptionsTable;
  statusLabel: string;
  perPeriod: string;
  product: string;
  firstCharge: Pick<PixChargesTable, 'amount_cents' | 'created_at'> & { status: PixChargeStatus };
  cycles: SubscriptionCyclesTable[];
  sales: SalesTable[];
  /** The simulation buttons shown (test mode, a member who may use them); empty otherwise. */
  simulations: SubscriptionSimulation[];
  canCancel: boolean;
  base: string;
}

/** " (1 tentativa falhou)", " (2 tentativas falharam)", or nothing. */
const failedAttempts = (n: number) =>
  n === 0 ? '' : n === 1 ? ' (1 tentativa falhou)' : ` (${n} tentativas falharam)`;

/** A subscription's page: its terms, its cycles (the first charge is cycle 1), its sales. */
export function SubscriptionPage(props: SubscriptionPageData) {
  const { row } = props;
  const customer = JSON.parse(row.customer) as Customer;
  const firstSale = props.sales.find((sale) => sale.cycle === 1);
  return (
    <>
      <p>
        <a href={props.base}>Voltar para Assinaturas</a>
      </p>
      <section class="panel" aria-labelledby="assinatura-dados">
        <h2 id="assinatura-dados">Dados da assinatura</h2>
        <dl class="facts">
          <Detail term="Status">
            {props.statusLabel}
            {row.cancel_reason ? ` ${CANCEL_REASONS[row.cancel_reason]}` : ''}
          </Detail>
          <Detail term="Cliente">{customer.name ?? '—'}</Detail>
          <Detail term="E-mail">{customer.email ?? '—'}</Detail>
          <Detail term="Produto">{props.product}</Detail>
          <Detail term="Valor">{props.perPeriod}</Detail>
          <Detail term="Período atual">
            {row.current_period_start && row.current_period_end
              ? `${formatDate(row.current_period_start)} a ${formatDate(row.current_period_end)}`
              : '—'}
          </Detail>
          <Detail term="Próxima cobrança">
            {row.next_charge_date ? formatDate(row.next_charge_date) : '—'}
          </Detail>
          <Detail term="Criada em">
            <DateTime iso={row.created_at} />
          </Detail>
          {row.canceled_at ? (
            <Detail term="Encerrada em">
              <DateTime iso={row.canceled_at} />
            </Detail>
          ) : null}
          <Detail term="Identificador">
            <code>{row.id}</code>
          </Detail>
        </dl>
        {props.canCancel ? (
          <form method="get" action={`${props.base}/${row.id}/cancelar`}>
            <button type="submit" class="button button-small">
              Cancelar assinatura
            </button>
          </form>
        ) : null}
      </section>
      <section class="panel" aria-labelledby="assinatura-ciclos">
        <h2 id="assinatura-ciclos">Ciclos</h2>
        <ListTable
          label="Ciclos da assinatura"
          columns={['Ciclo', 'Vencimento', 'Valor', 'Status', 'Pago em']}
        >
          <tr>
            <td>1</td>
            <td>{formatDate(row.created_at.slice(0, 10))}</td>
            <td>{formatBrl(props.firstCharge.amount_cents)}</td>
            <td>{FIRST_CHARGE_LABELS[props.firstCharge.status]}</td>
            <td>{firstSale ? <DateTime iso={firstSale.created_at} /> : '—'}</td>
          </tr>
          {props.cycles.map((cycle) => (
            <tr>
              <td>{cycle.cycle}</td>
              <td>{formatDate(cycle.due_date)}</td>
              <td>{formatBrl(cycle.amount_cents)}</td>
              <td>
                {CYCLE_LABELS[cycle.status]}
                {failedAttempts(cycle.failed_attempts)}
              </td>
              <td>{cycle.paid_at ? <DateTime iso={cycle.paid_at} /> : '—'}</td>
            </tr>
          ))}
        </ListTable>
      </section>
      <section class="panel" aria-labelledby="assinatura-vendas">
        <h2 id="assinatura-vendas">Vendas</h2>
        {props.sales.length === 0 ? (
          <p>Nenhuma venda ainda.</p>
        ) : (
          <ListTable label="Vendas da assinatura" columns={['Data', 'Ciclo', 'Valor', 'Status', '']}>
            {props.sales.map((sale) => (
              <tr>
                <td>
                  <DateTime iso={sale.created_at} />
                </td>
                <td>{sale.cycle ?? '—'}</td>
                <td>{formatBrl(sale.amount_cents)}</td>
                <td>{SALE_STATUS_LABELS[sale.status]}</td>
                <td>
                  <a
                    href={`/dashboard/vendas?q=${encodeURIComponent(customer.email ?? customer.document ?? '')}`}
                  >
                    Ver em Vendas
                  </a>
                </td>
              </tr>
            ))}
          </ListTable>
        )}
      </section>
      {props.simulations.length > 0 ? (
        <section class="panel" aria-labelledby="assinatura-simular">
          <h2 id="assinatura-simular">Simulações (modo de teste)</h2>
          {props.simulations.map((simulation) => (
            <PostForm action={`${props.base}/${row.id}/simular/${simulation}`}>
              <button type="submit" class="button button-small">
                {SUBSCRIPTION_SIMULATIONS[simulation].label}
              </button>
            </PostForm>
          ))}
        </section>
      ) : null}
    </>
  );
}
