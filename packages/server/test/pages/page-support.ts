import { startEmailWorker } from '../../src/flows/send-emails.js';
import type { EmailWorker } from '../../src/flows/send-emails.js';
import { hashOrderToken } from '../../src/domain/orders/order-object.js';
import type { TestApi } from '../support/test-api.js';
import { silentLog } from '../webhooks/delivery-harness.js';

/** A buyer valid in every field (the CPF's check digits are right). */
export const BUYER = {
  name: 'Maria da Silva',
  email: 'maria@example.com',
  document: '529.982.247-25',
  whatsapp: '(11) 98765-4321',
};

export interface Shop {
  key: string;
  storeId: string;
  handle: string;
  checkoutId: string;
  product: any;
  bump: any;
  /** `/p/<handle>/<slug>` of the main product. */
  pagePath: string;
}

/** A store with a product offering a bump, its default checkout showing the coupon field. */
export async function createShop(
  api: TestApi,
  product: Record<string, unknown> = {},
  name = 'Loja Teste',
): Promise<Shop> {
  const { key, storeId, defaultCheckoutId } = await api.createStore({ name });
  const store = await api.db
    .selectFrom('stores')
    .select('handle')
    .where('id', '=', storeId)
    .executeTakeFirstOrThrow();
  await api
    .as(key)
    .patch(`/checkouts/${defaultCheckoutId}`, { settings_json: { checkout_cupom_enabled: true } });
  const bump = (await api.as(key).post('/products', { nome: 'E-book bônus', preco: 9.9 })).body;
  const main = await api.as(key).post('/products', {
    nome: 'Curso de Violão',
    preco: 100,
    link_acesso: 'https://members.example.com/violao',
    order_bump_enabled: true,
    order_bump_product_id: bump.id,
    order_bump_title: 'Leve também o e-book',
    ...product,
  });
  if (main.status !== 201) throw new Error(`product not created: ${main.text}`);
  return {
    key,
    storeId,
    handle: store.handle,
    checkoutId: defaultCheckoutId,
    product: main.body,
    bump,
    pagePath: `/p/${store.handle}/${main.body.slug}`,
  };
}

export interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** Calls a purchase-page URL as a browser on the page would (same Origin) unless told otherwise. */
export async function pageRequest(
  api: TestApi,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = { origin: api.baseUrl },
): Promise<PageResponse> {
  const response = await fetch(`${api.baseUrl}${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Places an order on the shop's page; returns the response and, on success, the order token. */
export async function placeOrder(api: TestApi, shop: Shop, body: Record<string, unknown> = {}) {
  const res = await pageRequest(api, 'POST', `${shop.pagePath}/orders`, { ...BUYER, bump: false, ...body });
  const token = res.status === 201 ? (res.json.order_url as string).split('/').pop()! : null;
  return { res, token };
}

/** The charge an order points at, through the database (the order's row names it). */
export async function chargeOfOrder(api: TestApi, token: string): Promise<string> {
  const row = await api.db
    .selectFrom('orders')
    .select('pix_charge_id')
    .where('token_hash', '=', hashOrderToken(token))
    .executeTakeFirstOrThrow();
  return row.pix_charge_id!;
}

/**
 * Two coupons a buyer must be refused: one used up (`exhausted`, max 1 and redeemed once) and one
 * past its expiry (`expired`; moved into the past in the database, as the API refuses a past date).
 */
export async function createRefusedCoupons(
  api: TestApi,
  shop: Shop,
  codes: { exhausted: string; expired: string },
) {
  const used = (
    await api.as(shop.key).post('/coupons', { code: codes.exhausted, percent_off: 5, max_redemptions: 1 })
  ).body;
  await api.db.updateTable('coupons').set({ times_redeemed: 1 }).where('id', '=', used.id).execute();
  const expiring = (
    await api.as(shop.key).post('/coupons', {
      code: codes.expired,
      percent_off: 5,
      expires_at: new Date(Date.now() + 60_000).toISOString(),
    })
  ).body;
  await api.db
    .updateTable('coupons')
    .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
    .where('id', '=', expiring.id)
    .execute();
}

/** An e-mail worker on the test service's SMTP settings, polling every 50 ms, trusting the test server's CA. */
export function startPageEmailWorker(api: TestApi, ca: string): EmailWorker {
  return startEmailWorker({
    db: api.db,
    smtp: api.config.smtp!,
    config: { ...api.config, emailRetryScheduleMs: [50] },
    log: silentLog,
    tls: { ca },
    pollIntervalMs: 50,
  });
}

/** The sale of a paid order, as the API shows it to the store's key. */
export async function saleOfOrder(api: TestApi, shop: Shop, token: string) {
  const { sale_id } = await api.db
    .selectFrom('orders')
    .select('sale_id')
    .where('token_hash', '=', hashOrderToken(token))
    .executeTakeFirstOrThrow();
  return (await api.as(shop.key).get(`/sales/${sale_id}`)).body;
}
