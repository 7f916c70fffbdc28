import { beforeAll, expect, it } from 'vitest';
import { memberPerRole } from '../support/dashboard.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { paidSale } from './vendas-support.js';

/**
 * Words of English that have no place in a Portuguese page: API statuses shown raw ("paid"), messages
 * of the API or of Node passed through ("must be", "not found"), and the like. Loanwords the
 * dashboard uses on purpose (checkout, webhook, e-mail, Pix, status, link) are not in the list.
 */
const ENGLISH =
  /\b(the|and|with|must|should|not|is|are|was|has|have|been|paid|pending|failed|refunded|canceled|cancelled|succeeded|enabled|disabled|skipped|expired|active|delivered|approved|error|invalid|required|unknown|address|no SMTP|because)\b/i;
/** A raw field or event key (`checkout_cupom_enabled`) shown as text. */
const RAW_KEY = /\b[a-z]+(?:_[a-z]+)+\b/;

/**
 * The words a person reads on a page: text outside tags, without scripts, styles and the code a
 * developer copies (`<code>`, `<pre>`), nor what the store itself typed (kept as typed). Event types
 * (`sale.approved`) are the API's names, and `{{nome}}` a placeholder the seller types: both stay.
 */
function readableText(html: string): string {
  return html
    .replace(/<(script|style|code|pre|kbd|samp|textarea|select)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&[a-z]+;|&#\d+;/gi, ' ')
    .replace(/\b[a-z_]+\.[a-z_]+\b|\{\{\w+\}\}/g, ' ')
    .replace(/\s+/g, ' ');
}

/** Every match in a page's text, with a few words around it to find it. */
function offending(text: string, pattern: RegExp): string[] {
  const found: string[] = [];
  const global = new RegExp(pattern.source, `${pattern.flags}g`);
  for (const match of text.matchAll(global))
    found.push(text.slice(Math.max(0, match.index - 40), match.index + match[0].length + 40).trim());
  return found;
}

describeEachDatabase('dashboard: every word in Portuguese', (api: TestApi) => {
  let key: string;
  let storeId: string;
  const { get, post, signIn } = memberPerRole(api);

  beforeAll(async () => {
    ({ key, storeId } = await api.createStore({ name: 'Loja Palavras' }));
    await signIn(storeId);
    const product = (await api.as(key).post('/products', { nome: 'Curso', preco: 100 })).body;
    await api.as(key).post('/products', { nome: 'Clube', preco: 30, recorrencia: 'mensal' });
    await api.as(key).post('/coupons', { code: 'BEMVINDO', percent_off: 10, product_ids: [product.id] });
    const customer = { name: 'Ana Souza', email: 'ana@example.com' };
    await paidSale(api, key, 50, customer);
    const refunded = await paidSale(api, key, 70, customer);
    await api.as(key).post(`/sales/${refunded}/refund`, {});
    const pending = await api.as(key).post('/payments/pix', { amount: 20, customer });
    await api.as(key).post(`/payments/pix/${pending.body.id}/cancel`, {});
    await api.as(key).post('/webhooks', { url: 'https://receptor.example/hooks', events: ['sale.approved'] });
  });

  /** Every dashboard page an owner reaches by following links from Início (GET only). */
  async function crawl(): Promise<Map<string, string>> {
    const pages = new Map<string, string>();
    const queue = ['/dashboard'];
    while (queue.length > 0 && pages.size < 120) {
      const path = queue.shift()!;
      if (pages.has(path)) continue;
      const res = await get('owner', path);
      if (res.status !== 200 || !(res.headers.get('content-type') ?? '').includes('text/html')) continue;
      pages.set(path, res.text);
      for (const [, href] of res.text.matchAll(/href="(\/dashboard[^"#]*)/g)) {
        const next = href!.replace(/&amp;/g, '&');
        if (/\/(sair|logout)\b|\.csv|\/assets\//.test(next)) continue;
        if (!pages.has(next) && !queue.includes(next)) queue.push(next);
      }
    }
    return pages;
  }

  it('no page an owner reaches shows English or a raw field key', async () => {
    const pages = await crawl();
    expect(pages.size).toBeGreaterThan(12);
    const problems: string[] = [];
    for (const [path, html] of pages) {
      const text = readableText(html);
      for (const hit of offending(text, ENGLISH)) problems.push(`${path}: …${hit}…`);
      for (const hit of offending(text, RAW_KEY)) problems.push(`${path} (key): …${hit}…`);
    }
    expect(problems).toEqual([]);
  });

  it('refusals are worded in Portuguese: a webhook URL the rules refuse, a resend without SMTP', async () => {
    const refusedUrl = await post('owner', '/dashboard/desenvolvedores/webhooks', {
      url: 'http://127.0.0.1/ganchos',
      events: 'sale.approved',
    });
    expect(refusedUrl.status).toBeGreaterThanOrEqual(400);
    const sale = await paidSale(api, key, 10, { name: 'Bia', email: 'bia@example.com' });
    const resend = await post('owner', `/dashboard/vendas/${sale}/reenviar-email`);
    for (const res of [refusedUrl, resend]) {
      const text = readableText(res.text);
      expect(offending(text, ENGLISH)).toEqual([]);
    }
  });
});
