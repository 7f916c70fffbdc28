import { useContext } from 'preact/hooks';
import { formatBrl, toCents } from '../../../platform/values/money.js';
import type { SaleConversion } from '../../../domain/conversions/sale-conversions.js';
import { TRACKING_KEYS } from '../../../domain/kernel/tracking.js';
import type { Tracking as TrackingValues } from '../../../domain/kernel/tracking.js';
import type { Sale } from '../../../domain/sales/sale-object.js';
import { roleAllows } from '../../../domain/accounts/roles.js';
import { Notice, PostForm, Section, TableFrame, DateTime } from '../views/components.js';
import { CHARGE_STATUS_LABELS, SALE_STATUS_LABELS } from '../views/format.js';
import { PageContextValue } from '../views/page-context.js';
import { EmailError } from './email-error.js';
import { SaleConversions } from './sale-conversions.js';
import { SaleCardPayment } from './sale-card-payment.js';
import type { SaleCardPaymentRow } from './sale-card-payment.js';

export interface SaleCharge {
  id: string;
  status: string;
  amount_cents: number;
  txid: string;
  created_at: string;
  paid_at: string | null;
}

export interface SaleEvent {
  id: string;
  type: string;
  created_at: string;
}

/** A message after an action, from the page's query or from a service's refusal. */
export interface SaleNotice {
  kind: 'ok' | 'error';
  text: string;
}

const DELIVERY_LABELS = {
  pending: 'Na fila de envio',
  sent: 'Enviado',
  failed: 'Falhou',
  skipped: 'Não enviado (o serviço não tem e-mail configurado)',
} as const;

const REFUND_LABELS = {
  pending: 'Em processamento no PSP',
  succeeded: 'Concluído',
  failed: 'Recusado',
} as const;

const PAYMENT_WORDS = { pix: 'Pix', free: 'Gratuito', card: 'Cartão de crédito' } as const;

const brl = (amount: number) => formatBrl(toCents(amount));
const when = (iso: string | null) => (iso ? <DateTime iso={iso} /> : '—');

/** Whether the refund button applies: an approved sale with no refund under way. */
export const refundable = (sale: Sale) => sale.status === 'approved' && sale.refund?.status !== 'pending';

export const refundPath = (sale: Pick<Sale, 'id'>) => `/dashboard/vendas/${sale.id}/reembolso`;

/** The confirmation itself: a form only an owner's session can send. */
function RefundConfirmForm(props: { sale: Sale }) {
  return (
    <PostForm action={refundPath(props.sale)}>
      <p>
        {brl(props.sale.amount)} voltam para quem pagou. A venda passa a reembolsada e isso não pode ser
        desfeito.
      </p>
      <button type="submit" class="button button-danger">
        Confirmar reembolso
      </button>
    </PostForm>
  );
}

function Actions(props: { sale: Sale }) {
  const { role } = useContext(PageContextValue);
  const { sale } = props;
  const canRefund = role !== null && roleAllows(role, 'owner') && refundable(sale);
  const canResend = role !== null && roleAllows(role, 'editor') && sale.delivery_email !== null;
  if (!canRefund && !canResend) return null;
  return (
    <div class="actions">
      {canRefund ? (
        <>
          {/* Without JavaScript this opens the confirm page; with it, the dialog below. */}
          <form method="get" action={refundPath(sale)} data-confirm="reembolso-dialogo">
            <button type="submit" class="button button-danger">
              Reembolsar
            </button>
          </form>
          <dialog id="reembolso-dialogo" aria-labelledby="reembolso-dialogo-titulo">
            <h2 id="reembolso-dialogo-titulo">Reembolsar esta venda?</h2>
            <RefundConfirmForm sale={sale} />
            <form method="dialog">
              <button type="submit" value="cancel" class="button button-quiet">
                Cancelar
              </button>
            </form>
          </dialog>
        </>
      ) : null}
      {canResend ? (
        <PostForm action={`/dashboard/vendas/${sale.id}/reenviar-email`}>
          <button type="submit" class="button">
            Reenviar e-mail
          </button>
        </PostForm>
      ) : null}
    </div>
  );
}

/** The campaign parameters the sale came with, in the order the purchase page keeps them. */
function Tracking(props: { sale: Sale }) {
  // The schema's static type of a partial record is `{}`: the keys are TRACKING_KEYS.
  const tracking = props.sale.tracking as TrackingValues;
  const present = TRACKING_KEYS.filter((key) => tracking[key] !== undefined);
  if (present.length === 0) return <p>Sem parâmetros de campanha (UTM, src, sck, fbclid, gclid).</p>;
  return (
    <dl class="facts">
      {present.map((key) => (
        <>
          <dt>
            <code>{key}</code>
          </dt>
          <dd>{tracking[key]}</dd>
        </>
      ))}
    </dl>
  );
}

export function SalePage(props: {
  sale: Sale;
  productName: string | null;
  charge: SaleCharge | undefined;
  cardPayment: SaleCardPaymentRow | undefined;
  /** When the PSP reported the card payment disputed and taken back; null otherwise. */
  chargedBackAt: string | null;
  events: SaleEvent[];
  conversions: SaleConversion[];
  notice: SaleNotice | null;
}) {
  const { sale, charge } = props;
  const customer = sale.customer;
  return (
    <>
      {props.notice ? <Notice kind={props.notice.kind}>{props.notice.text}</Notice> : null}
      <p>
        <a href="/dashboard/vendas">Voltar para Vendas</a>
      </p>
      <Section title="Resumo" id="resumo">
        <dl class="facts">
          <dt>Data</dt>
          <dd>
            <DateTime iso={sale.created_at} />
          </dd>
          <dt>Status</dt>
          <dd>{SALE_STATUS_LABELS[sale.status]}</dd>
          <dt>Valor</dt>
          <dd>{brl(sale.amount)}</dd>
          <dt>Pagamento</dt>
          <dd>{PAYMENT_WORDS[sale.payment_method]}</dd>
          <dt>Produto</dt>
          <dd>{props.productName ?? '—'}</dd>
          <dt>Modo</dt>
          <dd>{sale.livemode ? 'Produção' : 'Teste'}</dd>
          {props.chargedBackAt ? (
            <>
              <dt>Contestada em</dt>
              <dd>
                <DateTime iso={props.chargedBackAt} />: o comprador contestou o pagamento e o PSP devolveu o
                valor a ele.
              </dd>
            </>
          ) : null}
          {sale.recovered ? (
            <>
              <dt>Recuperação</dt>
              <dd>Venda recuperada: o pedido foi pago depois de abandonado.</dd>
            </>
          ) : null}
          {sale.refund ? (
            <>
              <dt>Reembolso</dt>
              <dd>
                {REFUND_LABELS[sale.refund.status]} ({when(sale.refund.requested_at)})
                {sale.refund.failure_reason ? `: ${sale.refund.failure_reason}` : ''}
              </dd>
            </>
          ) : null}
        </dl>
        <Actions sale={sale} />
      </Section>
      <Section title="Itens" id="itens">
        {sale.items.length === 0 ? (
          <p>Venda de uma cobrança criada pela API: sem itens.</p>
        ) : (
          <TableFrame label="Itens da venda">
            <table>
              <thead>
                <tr>
                  <th scope="col">Item</th>
                  <th scope="col">Tipo</th>
                  <th scope="col">Valor</th>
                </tr>
              </thead>
              <tbody>
                {sale.items.map((item) => (
                  <tr>
                    <td data-label="Item">{item.nome}</td>
                    <td data-label="Tipo">{item.kind === 'order_bump' ? 'Order bump' : 'Produto'}</td>
                    <td data-label="Valor">{brl(item.amount)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
        )}
        <p>
          Cupom: {sale.coupon ? `${sale.coupon.code} (desconto de ${brl(sale.coupon.discount)})` : 'nenhum'}
        </p>
      </Section>
      <Section title="Cliente" id="cliente">
        {customer === null ? (
          <p>Sem dados do cliente.</p>
        ) : (
          <dl class="facts">
            <dt>Nome</dt>
            <dd>{customer.name ?? '—'}</dd>
            <dt>E-mail</dt>
            <dd>{customer.email ?? '—'}</dd>
            <dt>CPF/CNPJ</dt>
            <dd>{customer.document ?? '—'}</dd>
            <dt>WhatsApp</dt>
            <dd>{customer.whatsapp ?? '—'}</dd>
          </dl>
        )}
      </Section>
      <Section title="Rastreamento" id="rastreamento">
        <Tracking sale={sale} />
      </Section>
      {props.cardPayment ? <SaleCardPayment payment={props.cardPayment} /> : null}
      <Section title="Cobrança Pix" id="cobranca">
        {charge === undefined ? (
          <p>Sem cobrança: a venda não teve pagamento Pix.</p>
        ) : (
          <dl class="facts">
            <dt>Identificador</dt>
            <dd>{charge.id}</dd>
            <dt>Status</dt>
            <dd>
              {CHARGE_STATUS_LABELS[charge.status as keyof typeof CHARGE_STATUS_LABELS] ?? charge.status}
            </dd>
            <dt>txid</dt>
            <dd>{charge.txid}</dd>
            <dt>Criada</dt>
            <dd>{when(charge.created_at)}</dd>
            <dt>Paga</dt>
            <dd>{when(charge.paid_at)}</dd>
          </dl>
        )}
      </Section>
      <Section title="E-mail de entrega" id="email-entrega">
        {sale.delivery_email === null ? (
          <p>O cliente não deu e-mail: nenhum e-mail de entrega.</p>
        ) : (
          <dl class="facts">
            <dt>Situação</dt>
            <dd>{DELIVERY_LABELS[sale.delivery_email.status]}</dd>
            <dt>Tentativas</dt>
            <dd>{sale.delivery_email.attempts}</dd>
            <dt>Enviado em</dt>
            <dd>{when(sale.delivery_email.sent_at)}</dd>
            {sale.delivery_email.last_error ? (
              <>
                <dt>Último erro</dt>
                <dd>
                  <EmailError error={sale.delivery_email.last_error} />
                </dd>
              </>
            ) : null}
          </dl>
        )}
      </Section>
      <SaleConversions events={props.conversions} />
      <Section title="Eventos" id="eventos">
        {props.events.length === 0 ? (
          <p>Nenhum evento.</p>
        ) : (
          <ol class="events">
            {props.events.map((event) => (
              <li>
                <code>{event.type}</code> — <DateTime iso={event.created_at} /> <small>{event.id}</small>
              </li>
            ))}
          </ol>
        )}
      </Section>
    </>
  );
}

/** The refund's confirm page, for browsers without JavaScript. */
export function RefundConfirmPage(props: { sale: Sale }) {
  return (
    <Section title="Reembolsar esta venda?" id="confirmar">
      <RefundConfirmForm sale={props.sale} />
      <p>
        <a href={`/dashboard/vendas/${props.sale.id}`}>Cancelar</a>
      </p>
    </Section>
  );
}
