import type { ComposedEmail } from '../../platform/mail/smtp-mailer.js';
import { DEFAULT_RECOVERY_BODY, DEFAULT_RECOVERY_SUBJECT } from '../kernel/recovery-email-defaults.js';
import escapeHtml from 'escape-html';
import { formatBrl } from '../../platform/values/money.js';

/** One thing the buyer bought: the main product first, then any order bump. */
export interface DeliveryItem {
  nome: string;
  linkAcesso: string | null;
}

/** Everything a delivery e-mail says, gathered from the sale at send time. */
export interface DeliveryEmailInput {
  storeName: string;
  customerName: string | null;
  amountCents: number;
  /** How a card sale was paid (`Cartão de crédito, 3x de R$ 33,33`), told by the default greeting; null for Pix. */
  payment?: string | null;
  /** At least one; the first is the main product, whose subject and body templates are used. */
  items: DeliveryItem[];
  subject: string | null;
  body: string | null;
}

const DEFAULT_SUBJECT = 'Compra aprovada: {{produto}}';
/** The greeting without a template of the product's own; a card sale's says how it was paid. */
const defaultGreeting = (payment: string | null | undefined) =>
  `Olá, {{nome}}!\n\nSeu pagamento de {{valor}}${payment ? ` (${payment})` : ''} foi aprovado. Obrigado pela sua compra em {{loja}}!`;
const DEFAULT_ACCESS_LINE = '\n\nAcesse {{produto}}: {{link_acesso}}';
/** Who the greeting names when the customer gave no name. */
const NAMELESS = 'cliente';

type Placeholder = 'nome' | 'produto' | 'link_acesso' | 'valor' | 'loja';
const HTTP_URL = /^https?:\/\/[^\s"<>]+$/i;
const listFormat = new Intl.ListFormat('pt-BR', { type: 'conjunction' });

/** A template and the values of its placeholders; `link` is the one placeholder written as a link. */
interface Filled<Name extends string> {
  subject: string;
  body: string;
  values: Record<Name, string>;
  link?: Name;
  /** Appended to the text and to the HTML (already escaped) after the body. */
  extra?: { text: string; html: string };
}

/**
 * Fills a subject and a body as plain text and as HTML in which every merchant and buyer string is
 * escaped; the link placeholder becomes clickable when it is an http(s) URL. `{{ name }}` with spaces
 * works too; an unknown `{{…}}` stays as typed.
 */
function compose<Name extends string>(input: Filled<Name>): ComposedEmail {
  const names = Object.keys(input.values) as Name[];
  const pattern = new RegExp(`\\{\\{\\s*(${names.join('|')})\\s*\\}\\}`, 'g');
  const value = (name: Name) => input.values[name];
  // A subject is one line, whatever the template or the values hold.
  const subject = fill<Name>(input.subject, pattern, value).replace(/\s+/g, ' ').trim();
  const text = fill<Name>(input.body, pattern, value) + (input.extra?.text ?? '');
  const htmlBody =
    paragraphs(
      fill<Name>(
        input.body,
        pattern,
        (name) => (name === input.link ? linkHtml(value(name) || null) : escapeHtml(value(name))),
        escapeHtml,
      ),
    ) + (input.extra?.html ?? '');
  const html =
    '<!doctype html><html lang="pt-BR"><head><meta charset="utf-8">' +
    `<title>${escapeHtml(subject)}</title></head>` +
    `<body style="font-family:Arial,Helvetica,sans-serif;line-height:1.5;color:#222">${htmlBody}</body></html>`;
  return { subject, text, html };
}

/**
 * Fills the product's subject and body (or the defaults) with `{{nome}}`, `{{produto}}`,
 * `{{link_acesso}}`, `{{valor}}` and `{{loja}}`. With several items, both parts end with each item and
 * its link, so an order bump's access arrives whatever the template says.
 */
export function composeDeliveryEmail(input: DeliveryEmailInput): ComposedEmail {
  const main = input.items[0];
  if (!main) throw new Error('a delivery e-mail needs at least one item');
  const values: Record<Placeholder, string> = {
    nome: input.customerName ?? NAMELESS,
    produto: listFormat.format(input.items.map((item) => item.nome)),
    link_acesso: main.linkAcesso ?? '',
    valor: formatBrl(input.amountCents),
    loja: input.storeName,
  };
  const several = input.items.length > 1;
  const body =
    input.body ??
    defaultGreeting(input.payment) + (main.linkAcesso !== null && !several ? DEFAULT_ACCESS_LINE : '');
  return compose<Placeholder>({
    subject: input.subject ?? DEFAULT_SUBJECT,
    body,
    values,
    link: 'link_acesso',
    ...(several && {
      extra: {
        text: '\n\nSeus acessos:\n' + input.items.map((item) => `- ${itemLine(item)}`).join('\n'),
        html:
          '<p>Seus acessos:</p><ul>' +
          input.items
            .map(
              (item) =>
                `<li>${escapeHtml(item.nome)}${item.linkAcesso === null ? '' : `: ${linkHtml(item.linkAcesso)}`}</li>`,
            )
            .join('') +
          '</ul>',
      },
    }),
  });
}

/** What the buyer is told when the store cancels their subscription. */
export interface CancellationEmailInput {
  storeName: string;
  customerName: string | null;
  product: string;
  /** "R$ 49,90 por mês". */
  amountPerPeriod: string;
}

const CANCELLATION_SUBJECT = 'Assinatura cancelada: {{produto}}';
const CANCELLATION_BODY =
  'Olá, {{nome}}!\n\n{{loja}} cancelou a sua assinatura de {{produto}} ({{valor}}). ' +
  'Nenhuma nova cobrança será feita, e a autorização do Pix Automático foi encerrada.\n\n' +
  'Em caso de dúvida, fale com {{loja}}.';

/** The buyer's notice that the store canceled their subscription (no cobrança follows). */
export function composeCancellationEmail(input: CancellationEmailInput): ComposedEmail {
  return compose<'nome' | 'produto' | 'valor' | 'loja'>({
    subject: CANCELLATION_SUBJECT,
    body: CANCELLATION_BODY,
    values: {
      nome: input.customerName ?? NAMELESS,
      produto: input.product,
      valor: input.amountPerPeriod,
      loja: input.storeName,
    },
  });
}

/** What an abandoned-order e-mail says, gathered from the order and its store at send time. */
export interface RecoveryEmailInput {
  storeName: string;
  customerName: string;
  products: string[];
  amountCents: number;
  paymentLink: string;
  subject: string | null;
  body: string | null;
}

/**
 * The store's abandoned-order e-mail (or the default), with `{{nome}}`, `{{produto}}`, `{{valor}}`,
 * `{{link_pagamento}}` (the order page, which renews an expired Pix) and `{{loja}}`.
 */
export function composeRecoveryEmail(input: RecoveryEmailInput): ComposedEmail {
  return compose<'nome' | 'produto' | 'valor' | 'link_pagamento' | 'loja'>({
    subject: input.subject ?? DEFAULT_RECOVERY_SUBJECT,
    body: input.body ?? DEFAULT_RECOVERY_BODY,
    values: {
      nome: input.customerName,
      produto: listFormat.format(input.products),
      valor: formatBrl(input.amountCents),
      link_pagamento: input.paymentLink,
      loja: input.storeName,
    },
    link: 'link_pagamento',
  });
}

function itemLine(item: DeliveryItem): string {
  return item.linkAcesso === null ? item.nome : `${item.nome}: ${item.linkAcesso}`;
}

/** Replaces each placeholder with `value(name)`; the template's own text goes through `literal`. */
function fill<Name extends string>(
  template: string,
  pattern: RegExp,
  value: (name: Name) => string,
  literal: (text: string) => string = (text) => text,
): string {
  let out = '';
  let last = 0;
  for (const match of template.matchAll(pattern)) {
    out += literal(template.slice(last, match.index)) + value(match[1] as Name);
    last = match.index + match[0].length;
  }
  return out + literal(template.slice(last));
}

/** An http(s) access link becomes clickable; anything else stays escaped text. */
function linkHtml(link: string | null): string {
  if (link === null) return '';
  const escaped = escapeHtml(link);
  return HTTP_URL.test(link) ? `<a href="${escaped}">${escaped}</a>` : escaped;
}

/** Blank lines separate paragraphs; a single line break stays a line break. */
function paragraphs(escapedHtml: string): string {
  return escapedHtml
    .split(/\r?\n\s*\r?\n/)
    .map((block) => block.trim())
    .filter((block) => block !== '')
    .map((block) => `<p>${block.replace(/\r?\n/g, '<br>')}</p>`)
    .join('');
}
