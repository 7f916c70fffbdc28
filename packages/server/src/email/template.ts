import escapeHtml from 'escape-html';
import { formatBrl } from '../common/money.js';

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
  /** At least one; the first is the main product, whose subject and body templates are used. */
  items: DeliveryItem[];
  subject: string | null;
  body: string | null;
}

export interface ComposedEmail {
  subject: string;
  text: string;
  html: string;
}

const DEFAULT_SUBJECT = 'Compra aprovada: {{produto}}';
const DEFAULT_GREETING =
  'Olá, {{nome}}!\n\nSeu pagamento de {{valor}} foi aprovado. Obrigado pela sua compra em {{loja}}!';
const DEFAULT_ACCESS_LINE = '\n\nAcesse {{produto}}: {{link_acesso}}';
/** Who the greeting names when the customer gave no name. */
const NAMELESS = 'cliente';

type Placeholder = 'nome' | 'produto' | 'link_acesso' | 'valor' | 'loja';
const PLACEHOLDER = /\{\{\s*(nome|produto|link_acesso|valor|loja)\s*\}\}/g;
const HTTP_URL = /^https?:\/\/[^\s"<>]+$/i;
const listFormat = new Intl.ListFormat('pt-BR', { type: 'conjunction' });

/**
 * Fills the product's subject and body (or the defaults) with `{{nome}}`, `{{produto}}`,
 * `{{link_acesso}}`, `{{valor}}` and `{{loja}}`, as plain text and as HTML in which every merchant
 * and buyer string is escaped. With several items, both parts end with each item and its link, so an
 * order bump's access arrives whatever the template says.
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
    input.body ?? DEFAULT_GREETING + (main.linkAcesso !== null && !several ? DEFAULT_ACCESS_LINE : '');
  // A subject is one line, whatever the template or the values hold.
  const subject = fill(input.subject ?? DEFAULT_SUBJECT, (name) => values[name])
    .replace(/\s+/g, ' ')
    .trim();

  const text =
    fill(body, (name) => values[name]) +
    (several ? '\n\nSeus acessos:\n' + input.items.map((item) => `- ${itemLine(item)}`).join('\n') : '');

  const htmlBody =
    paragraphs(
      fill(
        body,
        (name) => (name === 'link_acesso' ? linkHtml(main.linkAcesso) : escapeHtml(values[name])),
        escapeHtml,
      ),
    ) +
    (several
      ? '<p>Seus acessos:</p><ul>' +
        input.items
          .map(
            (item) =>
              `<li>${escapeHtml(item.nome)}${item.linkAcesso === null ? '' : `: ${linkHtml(item.linkAcesso)}`}</li>`,
          )
          .join('') +
        '</ul>'
      : '');
  const html =
    '<!doctype html><html lang="pt-BR"><head><meta charset="utf-8">' +
    `<title>${escapeHtml(subject)}</title></head>` +
    `<body style="font-family:Arial,Helvetica,sans-serif;line-height:1.5;color:#222">${htmlBody}</body></html>`;
  return { subject, text, html };
}

function itemLine(item: DeliveryItem): string {
  return item.linkAcesso === null ? item.nome : `${item.nome}: ${item.linkAcesso}`;
}

/** Replaces each placeholder with `value(name)`; the template's own text goes through `literal`. */
function fill(
  template: string,
  value: (name: Placeholder) => string,
  literal: (text: string) => string = (text) => text,
): string {
  let out = '';
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    out += literal(template.slice(last, match.index)) + value(match[1] as Placeholder);
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
