import type { ApiError } from '../../../platform/http/api-error.js';
import { RESEND_REFUSALS } from '../../../flows/queue-delivery-email.js';
import { REFUND_REFUSALS } from '../../../flows/refund-sale.js';

/** The API's refusals of a refund or a resend, as a sale's page words them for the store's team. */
const IN_PORTUGUESE = new Map<string, string>([
  [REFUND_REFUSALS.alreadyRefunded, 'esta venda já foi reembolsada.'],
  [
    REFUND_REFUSALS.chargedBack,
    'o comprador contestou o pagamento com cartão e o PSP já devolveu o dinheiro.',
  ],
  [REFUND_REFUSALS.pending, 'já há um reembolso desta venda em andamento no PSP; o resultado aparece aqui.'],
  [RESEND_REFUSALS.noRecipient, 'o cliente desta venda não tem e-mail.'],
  [RESEND_REFUSALS.refunded, 'a venda foi reembolsada; o e-mail de entrega não é reenviado.'],
  [RESEND_REFUSALS.chargedBack, 'a venda foi contestada; o e-mail de entrega não é reenviado.'],
  [
    RESEND_REFUSALS.noSmtp,
    'o serviço não tem envio de e-mail configurado (quem administra o servidor configura SMTP_URL e STOREFRONT_MAIL_FROM).',
  ],
]);

/** Any other refusal: the PSP unavailable, or a rule this page has no words for. */
export function saleRefusalInPortuguese(error: ApiError): string {
  const known = IN_PORTUGUESE.get(error.message);
  if (known) return known;
  if (error.statusCode >= 500) return 'o PSP não respondeu como esperado; tente de novo em instantes.';
  return `o pedido foi recusado (${error.code}).`;
}
