import { DECLINE_MESSAGES_PT } from '../../../domain/kernel/card-outcome.js';
import type { CardPaymentsTable } from '../../../domain/card-payments/card-payment-object.js';
import { formatBrl } from '../../../platform/values/money.js';
import { Section, DateTime } from '../views/components.js';
import { brandLabel } from './payment-words.js';

/** The columns of a card payment its sale's page shows. */
export type SaleCardPaymentRow = Pick<
  CardPaymentsTable,
  | 'id'
  | 'status'
  | 'provider'
  | 'amount_cents'
  | 'installments'
  | 'installment_amount_cents'
  | 'total_amount_cents'
  | 'card_brand'
  | 'card_last4'
  | 'authorization_code'
  | 'decline_code'
  | 'decline_provider_code'
  | 'approved_at'
>;

const STATUS_LABELS: Record<CardPaymentsTable['status'], string> = {
  requires_action: 'Aguardando autenticação (3-D Secure)',
  processing: 'Em análise no PSP',
  approved: 'Aprovado',
  declined: 'Recusado',
  refunded: 'Reembolsado',
};

const PROVIDER_LABELS: Record<CardPaymentsTable['provider'], string> = {
  mercadopago: 'Mercado Pago',
  pagarme: 'Pagar.me',
  simulated: 'Simulado (modo de teste)',
};

/** The card that paid a sale: the card, the installments the buyer chose and what the PSP answered. */
export function SaleCardPayment(props: { payment: SaleCardPaymentRow }) {
  const { payment } = props;
  const card = [
    payment.card_brand === null ? null : brandLabel(payment.card_brand),
    payment.card_last4 === null ? null : `•••• ${payment.card_last4}`,
  ].filter((part) => part !== null);
  const interest = payment.total_amount_cents - payment.amount_cents;
  return (
    <Section title="Pagamento com cartão" id="cartao">
      <dl class="facts">
        <dt>Cartão</dt>
        <dd>{card.length === 0 ? '—' : card.join(' ')}</dd>
        <dt>Parcelas</dt>
        <dd>
          {payment.installments}x de {formatBrl(payment.installment_amount_cents)}
        </dd>
        <dt>Total pago</dt>
        <dd>
          {formatBrl(payment.total_amount_cents)}{' '}
          {interest > 0 ? `(com ${formatBrl(interest)} de juros)` : '(sem juros)'}
        </dd>
        <dt>Situação</dt>
        <dd>{STATUS_LABELS[payment.status]}</dd>
        <dt>Aprovado em</dt>
        <dd>{payment.approved_at ? <DateTime iso={payment.approved_at} /> : '—'}</dd>
        <dt>Código de autorização</dt>
        <dd>{payment.authorization_code ?? '—'}</dd>
        <dt>PSP</dt>
        <dd>{PROVIDER_LABELS[payment.provider]}</dd>
        {payment.decline_code ? (
          <>
            <dt>Recusa</dt>
            <dd>
              <code>{payment.decline_code}</code>
              {payment.decline_provider_code ? ` (PSP: ${payment.decline_provider_code})` : ''}:{' '}
              {DECLINE_MESSAGES_PT[payment.decline_code]}
            </dd>
          </>
        ) : null}
        <dt>Identificador</dt>
        <dd>{payment.id}</dd>
      </dl>
    </Section>
  );
}
