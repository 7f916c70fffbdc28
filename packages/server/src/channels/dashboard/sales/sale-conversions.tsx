import type { SaleConversion } from '../../../domain/conversions/sale-conversions.js';
import { Section, DateTime } from '../views/components.js';

const STATUS_LABELS = {
  pending: 'Na fila de envio',
  sent: 'Enviado ao Meta',
  failed: 'Falhou',
} as const;

const KIND_LABELS = {
  InitiateCheckout: 'InitiateCheckout (pedido criado)',
  Purchase: 'Purchase (venda aprovada)',
} as const;

/** What Meta answered to this sale's conversion events; nothing when the store had no Meta set. */
export function SaleConversions(props: { events: SaleConversion[] }) {
  if (props.events.length === 0) return null;
  return (
    <Section title="Conversões Meta" id="conversoes-meta">
      {props.events.map((event) => (
        <dl class="facts">
          <dt>Evento</dt>
          <dd>
            {KIND_LABELS[event.kind]} <small>{event.event_id}</small>
          </dd>
          <dt>Situação</dt>
          <dd>{STATUS_LABELS[event.status]}</dd>
          <dt>Tentativas</dt>
          <dd>{event.attempts}</dd>
          <dt>Enviado em</dt>
          <dd>{event.sent_at ? <DateTime iso={event.sent_at} /> : '—'}</dd>
          {event.last_error ? (
            <>
              <dt>Último erro</dt>
              <dd>{event.last_error}</dd>
            </>
          ) : null}
        </dl>
      ))}
    </Section>
  );
}
