import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { h } from 'preact';
import { startPageViewCounter } from '../../domain/analytics/page-views.js';
import { CouponRefused, usableCoupon } from '../../domain/coupons/coupon-holds.js';
import { ApiError } from '../../platform/http/api-error.js';
import { keyedRateLimit } from '../../platform/http/keyed-rate-limit.js';
import type { KeyedRateLimit } from '../../platform/http/keyed-rate-limit.js';
import { sendError } from '../../platform/http/errors.js';
import { checkBuyer, OrderBody } from '../../domain/orders/buyer.js';
import { orderCoupon, orderItems, ORDER_TOKEN_PATTERN } from '../../domain/orders/order-object.js';
import type { OrdersTable } from '../../domain/orders/order-object.js';
import { findOrderByToken } from '../../domain/orders/orders-repository.js';
import { offeredBump, placeOrder, renewOrderCharge } from '../../flows/place-order.js';
import { priceOrder } from '../../flows/price-order.js';
import { ProviderError } from '../../domain/payments/provider-errors.js';
import { orderPath } from '../../domain/orders/order-links.js';
import { cleanTracking } from '../../domain/kernel/tracking.js';
import { simulatePayment } from '../../flows/simulate-payment.js';
import { findProduct } from '../../domain/catalogue/products-repository.js';
import { formatBrl } from '../../platform/values/money.js';
import { PER_PERIOD } from '../../domain/subscriptions/periods.js';
import { findSubscriptionStartedBy } from '../../domain/subscriptions/subscriptions-repository.js';
import { orderEventStreams } from './order-status-stream.js';
import { GONE, readOrderStatuses } from './order-status.js';
import { orderStatusFeed } from './order-status-feed.js';
import { registerPageAssets } from '../../platform/html/page-assets.js';
import { loadPageProduct, loadProductPage, orderState, storeOf } from './page-data.js';
import type { PageProduct } from './page-data.js';
import {
  connectSources,
  httpUrl,
  isSameOrigin,
  newNonce,
  pageCsp,
  sendHtml,
  widenCsp,
} from '../../platform/html/page-security.js';

/** The https origin of a URL a CSP can name (the issuer's challenge page), or null. */
function httpOrigin(url: string): string | null {
  const checked = httpUrl(url);
  return checked !== null && checked.startsWith('https:') ? new URL(checked).origin : null;
}
import { sendProductPage } from './product-page-html.js';
import { renderPage } from '../../platform/html/render.js';
import { MessagePage } from './views/message-page.js';
import { OrderPage } from './views/order-page.js';
import { ThreeDSecurePage, cardOutcomeText } from './views/three-d-secure-page.js';
import { cardAcceptance } from '../../domain/payments/card-settings/card-provider-settings.js';
import { CARD_TOKEN_MAX_LENGTH, CARD_TOKEN_PATTERN } from '../../domain/card-payments/card-token.js';
import { installmentOptionsFor } from '../../flows/card-installments.js';
import { simulateThreeDSecure } from '../../flows/simulate-card-payment.js';
import { findCardPaymentByActionToken } from '../../domain/card-payments/card-payments-repository.js';
import type { CardPaymentsTable } from '../../domain/card-payments/card-payment-object.js';
import type { CardPayment } from '../../domain/card-payments/card-payment-object.js';
import { DECLINE_MESSAGES_PT } from '../../domain/kernel/card-outcome.js';
import { findOrder } from '../../domain/orders/orders-repository.js';
import { findStore } from '../../domain/stores/stores.js';
import { orderUrl } from '../../domain/orders/order-links.js';
import { declineMessageOf } from './page-data.js';
import { createHash } from 'node:crypto';

export const PURCHASE_PAGE_PREFIX = '/p';

/** How often the shared status reader re-reads every watched order (changes from elsewhere, expiry). */
const STATUS_POLL_MS = 2000;
/** What a refused stream is told to wait; the page polls `…/status` meanwhile. */
const STREAM_RETRY_AFTER_S = 30;

const ProductParams = Type.Object({ handle: Type.String(), slug: Type.String() });
const TokenParams = Type.Object({ token: Type.String() });
const QuoteBody = Type.Object(
  { bump: Type.Boolean(), coupon: Type.Optional(Type.String({ maxLength: 100 })) },
  { additionalProperties: false },
);
/** The installments of the order the page would place: its bump and coupon, and the card's BIN. */
const InstallmentsQuery = Type.Object(
  {
    bin: Type.Optional(Type.String({ pattern: '^([0-9]{6,8})?$' })),
    bump: Type.Optional(Type.Boolean()),
    coupon: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
/** The buyer's order; paying by card adds the PSP's token (never a card number) and the installments. */
const PageOrderBody = Type.Object(
  {
    ...OrderBody.properties,
    payment_method: Type.Optional(Type.Union([Type.Literal('pix'), Type.Literal('card')])),
    card: Type.Optional(
      Type.Object(
        {
          token: Type.String({ minLength: 1, maxLength: CARD_TOKEN_MAX_LENGTH, pattern: CARD_TOKEN_PATTERN }),
          installments: Type.Integer({ minimum: 1, maximum: 12 }),
          brand: Type.Optional(Type.String({ pattern: '^[a-z0-9_-]{1,40}$' })),
          issuer_id: Type.Optional(Type.String({ pattern: '^[0-9]{1,20}$' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
const ThreeDsBody = Type.Object(
  { result: Type.Union([Type.Literal('authenticated'), Type.Literal('failed')]) },
  { additionalProperties: false },
);

/** A JSON answer a page's script shows to the buyer: a message and, by field, what to fix. */
function refuse(
  status: number,
  message: string,
  fields: Record<string, string> = {},
  headers: Record<string, string> = {},
) {
  const error = new ApiError(
    status,
    status === 429 ? 'rate_limited' : 'invalid_request',
    message,
    Object.keys(fields)[0] ?? null,
    headers,
  );
  return Object.assign(error, { fields });
}

/** A refusal whose cause is already in the log: the error handler does not log the buyer's words. */
const CAUSE_LOGGED = Symbol('cause logged');

/**
 * What the buyer is told when the charge service could not make a Pix: the PSP failing (5xx) is
 * worth a retry; a live store whose PSP settings were removed is the merchant's to fix. Both are
 * logged for the operator with the store and, for a PSP failure, its real cause (unreachable host,
 * TLS, the PSP's problem) and the charge attempt. Anything else goes on unchanged.
 */
function chargeRefusal(request: FastifyRequest, storeId: string, error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  if (error.code === 'provider_not_configured') {
    // The cause says what is missing: the provider, or (for a subscription) its receiving account.
    request.log.warn(
      { storeId, cause: error.message },
      'store in live checkout mode has no live Pix provider configured: purchase-page orders are refused',
    );
    return refuse(503, 'Esta loja não está recebendo pagamentos no momento. Tente novamente mais tarde.');
  }
  if (error.statusCode >= 500) {
    request.log.error(
      {
        storeId,
        code: error.code,
        ...(error instanceof ProviderError && { pspStatus: error.pspStatus, attempt: error.attempt }),
        cause: error.message,
      },
      'purchase page: the Pix charge could not be created',
    );
    return Object.assign(refuse(503, 'Não foi possível gerar o Pix agora. Tente novamente em instantes.'), {
      [CAUSE_LOGGED]: true,
    });
  }
  return error;
}

/**
 * What the buyer is told when the card could not be charged at all (nothing was written): a 400 of
 * the card service (an installment count the store does not offer, a token the PSP refused) asks
 * them to check the card; a PSP failure or a live store without its card PSP, to try again or use Pix.
 */
function cardRefusal(request: FastifyRequest, storeId: string, error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  if (error.code === 'provider_not_configured' || error.statusCode >= 500) {
    request.log.error(
      {
        storeId,
        code: error.code,
        ...(error instanceof ProviderError && { pspStatus: error.pspStatus, attempt: error.attempt }),
        cause: error.message,
      },
      'purchase page: the card payment could not be made',
    );
    return Object.assign(
      refuse(
        503,
        'Não foi possível processar o cartão agora. Tente novamente em instantes ou pague com Pix.',
      ),
      { [CAUSE_LOGGED]: true },
    );
  }
  if (error.param === 'installments') {
    return refuse(400, 'Escolha uma das opções de parcelamento.', {
      installments: 'Escolha uma das opções de parcelamento.',
    });
  }
  return refuse(400, 'O cartão não pôde ser lido. Confira os dados do cartão e tente de novo.');
}

/** What the page's script needs of a card payment: where 3-D Secure waits, or why it was declined. */
function cardAnswer(payment: CardPayment) {
  return {
    status: payment.status,
    // Relative, like `order_url`: the page's own origin, whichever name the buyer reached it by.
    next_action_url: payment.next_action ? new URL(payment.next_action.url).pathname : null,
    decline_message: payment.decline ? DECLINE_MESSAGES_PT[payment.decline.code] : null,
  };
}

const hashActionToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
/** The 3-D Secure page's token: 256 random bits, base64url. */
const ACTION_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The hosted purchase pages (no API key: the order token is the only key to an order): the product
 * page, its orders and quotes, and the order page with its live status. They call the same services
 * as the API: placing an order creates an ordinary Pix charge through the charge service, and
 * "Simular pagamento" pays through the one payment path.
 */
export async function purchasePageRoutes(
  parent: FastifyInstance,
  options: { redis: Redis | null },
): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, payments } = app;
  // A simulated 3-D Secure is an anonymous visitor's act, like the page's simulate: its sale's e-mail
  // goes only to the store's team and the allow list.
  const testCardLinks = { mail: { ...config, onlyTo: config.testMailAllow }, publicUrl: config.publicUrl };
  const assets = registerPageAssets(app, PURCHASE_PAGE_PREFIX);
  // Per (IP, store), STOREFRONT_ORDER_RATE_LIMIT a minute each. Quotes count apart from orders: a
  // buyer trying the bump and a coupon before ordering must not use up the orders, and a guesser of
  // coupon codes gets that many tries a minute, not hundreds a second.
  const limits = {
    orders: keyedRateLimit('orders', config.orderRateLimitPerMinute, options.redis, app.log),
    quotes: keyedRateLimit('quotes', config.orderRateLimitPerMinute, options.redis, app.log),
  };
  app.addHook('onClose', async () => {
    limits.orders.close();
    limits.quotes.close();
  });
  const pageViews = startPageViewCounter(db, { flushIntervalMs: config.pageViewFlushMs, log: app.log });
  app.addHook('onClose', () => pageViews.stop());
  const feed = orderStatusFeed(db, { pollMs: STATUS_POLL_MS, log: app.log });
  const streams = orderEventStreams(app, config.sse, feed);
  const hide = { hide: true };

  function messagePage(reply: FastifyReply, status: number, title: string, text: string) {
    const nonce = newNonce();
    return sendHtml(
      reply,
      status,
      pageCsp(nonce, [], { connect: [] }),
      renderPage(h(MessagePage, { nonce, assets, title, text })),
    );
  }
  const notFoundPage = (reply: FastifyReply) =>
    messagePage(
      reply,
      404,
      'Página não encontrada',
      'Este link não existe ou o produto não está mais à venda.',
    );

  app.setNotFoundHandler((_request, reply) => notFoundPage(reply));
  app.setErrorHandler(
    (error: Error & { fields?: Record<string, string>; statusCode?: number }, request, reply) => {
      if (request.method === 'GET' && !(error instanceof ApiError)) {
        request.log.error({ err: error }, 'purchase page failed');
        return messagePage(reply, 500, 'Algo deu errado', 'Tente novamente em instantes.');
      }
      const apiError =
        error instanceof ApiError
          ? error
          : (error.statusCode ?? 500) < 500
            ? new ApiError(400, 'invalid_request', 'Pedido inválido. Recarregue a página e tente de novo.')
            : new ApiError(500, 'internal_error', 'Algo deu errado do nosso lado. Tente novamente.');
      if (apiError.statusCode >= 500 && !(CAUSE_LOGGED in error)) {
        request.log.error({ err: error }, 'purchase page request failed');
      }
      if (!error.fields) return sendError(request, reply, apiError);
      return reply
        .code(apiError.statusCode)
        .headers(apiError.headers)
        .send({
          error: {
            code: apiError.code,
            message: apiError.message,
            param: apiError.param,
            request_id: request.id,
          },
          fields: error.fields,
        });
    },
  );

  /** Every POST comes from one of these pages (no cross-site forms or scripts). */
  app.addHook('preHandler', async (request) => {
    if (request.method === 'POST' && !isSameOrigin(request, config.publicUrl)) {
      throw refuse(403, 'Requisição de outra origem recusada.');
    }
  });

  /** The total the page would order: the bump when taken, the coupon when it applies (else why not). */
  async function pagePrice(
    product: PageProduct['product'],
    choice: { bump: boolean; coupon?: string | undefined },
  ) {
    const bump = choice.bump ? await offeredBump(db, product) : null;
    let coupon = null;
    let couponError: string | null = null;
    if (choice.coupon?.trim()) {
      try {
        coupon = await usableCoupon(db, {
          storeId: product.store_id,
          code: choice.coupon,
          productId: product.id,
          priceCents: product.preco_cents,
        });
      } catch (error) {
        if (!(error instanceof CouponRefused)) throw error;
        couponError = error.message;
      }
    }
    return { price: priceOrder(product, bump, coupon), coupon, couponError };
  }

  async function productOr404(params: { handle: string; slug: string }): Promise<PageProduct> {
    const data = await loadPageProduct(db, params.handle, params.slug);
    if (!data) throw refuse(404, 'Produto não encontrado.');
    return data;
  }

  async function orderOr404(token: string): Promise<OrdersTable> {
    const order = ORDER_TOKEN_PATTERN.test(token) ? await findOrderByToken(db, token) : undefined;
    if (!order) throw refuse(404, 'Pedido não encontrado.');
    return order;
  }

  async function rateLimited(
    request: FastifyRequest,
    storeId: string,
    limiter: KeyedRateLimit,
  ): Promise<void> {
    const wait = await limiter.consume(request.ip, storeId);
    if (wait !== null) {
      throw refuse(
        429,
        `Muitas tentativas. Aguarde ${wait} s e tente de novo.`,
        {},
        { 'Retry-After': String(wait) },
      );
    }
  }

  const statusJson = async (order: OrdersTable) =>
    (await readOrderStatuses(db, [order])).get(order.id)?.json ?? GONE;

  app.get('/:handle/:slug', { schema: { ...hide, params: ProductParams } }, async (request, reply) => {
    const data = await loadProductPage(db, request.params.handle, request.params.slug);
    if (!data) return notFoundPage(reply);
    const { store, product, settings } = data;
    const base = `${PURCHASE_PAGE_PREFIX}/${store.handle}/${product.slug}`;
    // A link with the store's previous handle: permanently to the current one, query kept (UTMs).
    if (request.params.handle !== store.handle) {
      const query = request.url.indexOf('?');
      return reply.redirect(query === -1 ? base : `${base}${request.url.slice(query)}`, 301);
    }
    const card = await cardAcceptance(db, store.id, store.checkout_mode === 'live');
    const sent = sendProductPage(
      reply,
      { store, product, settings, bump: await offeredBump(db, product), card },
      assets,
      {
        order: `${base}/orders`,
        quote: `${base}/quote`,
        installments: `${base}/installments`,
        orderPages: `${PURCHASE_PAGE_PREFIX}/o`,
      },
    );
    // A view is a page a browser received: not a HEAD (Fastify answers it with this handler), not an error.
    if (request.method === 'GET') {
      const livemode = store.checkout_mode === 'live' ? 1 : 0;
      pageViews.count({ storeId: store.id, productId: product.id, livemode });
    }
    return sent;
  });

  app.post(
    '/:handle/:slug/quote',
    { schema: { ...hide, params: ProductParams, body: QuoteBody } },
    async (request) => {
      const { store, product } = await productOr404(request.params);
      await rateLimited(request, store.id, limits.quotes);
      const { price, coupon, couponError } = await pagePrice(product, request.body);
      return {
        total: formatBrl(price.totalCents),
        discount: price.coupon ? formatBrl(coupon!.discountCents) : null,
        coupon_error: couponError,
      };
    },
  );

  app.get(
    '/:handle/:slug/installments',
    { schema: { ...hide, params: ProductParams, querystring: InstallmentsQuery } },
    async (request) => {
      const { store, product } = await productOr404(request.params);
      // It tells whether a coupon applies, as a quote does: the same limit, counted with the quotes.
      await rateLimited(request, store.id, limits.quotes);
      const livemode = store.checkout_mode === 'live';
      if (product.recorrencia !== null || !(await cardAcceptance(db, store.id, livemode)))
        throw refuse(400, 'Esta loja não aceita cartão neste produto.');
      const { price } = await pagePrice(product, {
        bump: request.query.bump ?? false,
        coupon: request.query.coupon,
      });
      try {
        return await installmentOptionsFor(
          payments,
          { storeId: store.id, livemode },
          store,
          price.totalCents,
          request.query.bin || null,
        );
      } catch (error) {
        throw cardRefusal(request, store.id, error);
      }
    },
  );

  app.post(
    '/:handle/:slug/orders',
    { schema: { ...hide, params: ProductParams, body: PageOrderBody } },
    async (request, reply) => {
      const { store, product } = await productOr404(request.params);
      await rateLimited(request, store.id, limits.orders);
      const buyer = checkBuyer(request.body);
      if (!buyer.ok) throw refuse(400, 'Confira os campos destacados.', buyer.errors);
      const byCard = request.body.payment_method === 'card';
      const card = request.body.card;
      if (byCard) {
        if (!card) throw refuse(400, 'Preencha os dados do cartão.');
        const livemode = store.checkout_mode === 'live';
        if (product.recorrencia !== null || !(await cardAcceptance(db, store.id, livemode)))
          throw refuse(400, 'Esta loja não aceita cartão neste produto. Pague com Pix.');
      }
      try {
        const { token, cardPayment } = await placeOrder(db, payments, {
          store,
          product,
          customer: buyer.customer,
          bump: request.body.bump,
          coupon: request.body.coupon?.trim() || undefined,
          tracking: cleanTracking(request.body.tracking),
          client: { ip: request.ip, userAgent: request.headers['user-agent'] ?? null },
          config,
          card:
            byCard && card
              ? {
                  token: card.token,
                  installments: card.installments,
                  brand: card.brand ?? null,
                  issuerId: card.issuer_id ?? null,
                }
              : undefined,
        });
        return reply.code(201).send({
          order_url: orderPath(token),
          card_payment: cardPayment && cardAnswer(cardPayment),
        });
      } catch (error) {
        if (error instanceof CouponRefused) throw refuse(400, error.message, { coupon: error.message });
        throw byCard ? cardRefusal(request, store.id, error) : chargeRefusal(request, store.id, error);
      }
    },
  );

  app.get('/o/:token', { schema: { ...hide, params: TokenParams } }, async (request, reply) => {
    const order = ORDER_TOKEN_PATTERN.test(request.params.token)
      ? await findOrderByToken(db, request.params.token)
      : undefined;
    const store = order && (await storeOf(db, order));
    if (!order || !store) return notFoundPage(reply);
    const state = await orderState(db, order);
    const subscription = state.charge ? await findSubscriptionStartedBy(db, state.charge) : undefined;
    // For the canceled card (shown at once, or later when the store cancels while the buyer watches) and
    // an expired subscription order's "subscribe again".
    const product = state.status === 'paid' ? null : await findProduct(db, order.store_id, order.product_id);
    const nonce = newNonce();
    const base = orderPath(request.params.token);
    const urls = {
      status: `${base}/status`,
      events: `${base}/events`,
      simulate: `${base}/simulate`,
      renew: `${base}/renew`,
    };
    const html = renderPage(
      h(OrderPage, {
        nonce,
        assets,
        testMode: order.livemode === 0,
        storeName: store.name,
        status: state.status,
        items: orderItems(order),
        coupon: orderCoupon(order),
        amountCents: order.amount_cents,
        pix: state.charge && {
          copyPaste: state.charge.copy_paste,
          qrBase64: state.charge.qr_code_base64,
          expiresAt: state.charge.expires_at,
        },
        card:
          state.card && order.pix_charge_id === null
            ? {
                installments: state.card.installments,
                installmentCents: state.card.installment_amount_cents,
                totalCents: state.card.total_amount_cents,
                declineMessage: state.card.status === 'declined' ? declineMessageOf(state.card) : null,
                nextActionUrl:
                  state.card.status === 'requires_action' && state.card.next_action_url
                    ? new URL(state.card.next_action_url).pathname
                    : null,
              }
            : null,
        accessLinks: state.accessLinks,
        subscription: subscription ? { perPeriod: PER_PERIOD[subscription.recorrencia] } : null,
        productUrl: product?.ativo === 1 ? `${PURCHASE_PAGE_PREFIX}/${store.handle}/${product.slug}` : null,
        urls,
      }),
    );
    // No Meta pixel here: this URL is the buyer's key to the order, and a pixel reports the page's URL
    // to Meta. The server sends the order's events (Conversions API). The script reaches its own four
    // URLs only.
    const csp = pageCsp(nonce, [], { connect: connectSources(request, Object.values(urls)) });
    return sendHtml(reply, 200, csp, html);
  });

  app.get('/o/:token/status', { schema: { ...hide, params: TokenParams } }, async (request, reply) => {
    const order = await orderOr404(request.params.token);
    return reply.header('cache-control', 'no-store').send(await statusJson(order));
  });

  app.get('/o/:token/events', { schema: { ...hide, params: TokenParams } }, async (request, reply) => {
    const release = streams.admit(request.params.token, request);
    if (!release) {
      // Connection: close gives the socket back at once: a refused stream holds no descriptor.
      throw refuse(
        429,
        'Muitas conexões abertas para acompanhar pedidos. A página passa a consultar o status de tempos em tempos.',
        {},
        { 'Retry-After': String(STREAM_RETRY_AFTER_S), Connection: 'close' },
      );
    }
    try {
      streams.open(request, reply, await orderOr404(request.params.token), release);
    } catch (error) {
      release();
      throw error;
    }
  });

  app.post('/o/:token/simulate', { schema: { ...hide, params: TokenParams } }, async (request) => {
    const order = await orderOr404(request.params.token);
    await rateLimited(request, order.store_id, limits.orders);
    if (order.livemode === 1) throw refuse(400, 'Este pedido é real: o pagamento não pode ser simulado.');
    const state = await orderState(db, order);
    if (state.status !== 'pending' || !state.charge)
      throw refuse(400, 'Este Pix não está mais aguardando pagamento.');
    // An anonymous visitor paid: its e-mail goes only to the store's team and the allow list.
    await simulatePayment(db, state.charge, { smtp: config.smtp, onlyTo: config.testMailAllow });
    return statusJson(order);
  });

  app.post('/o/:token/renew', { schema: { ...hide, params: TokenParams } }, async (request) => {
    const order = await orderOr404(request.params.token);
    await rateLimited(request, order.store_id, limits.orders);
    // A Pix the store canceled (the API's cancel) is the store's decision: no new one from the page.
    if ((await orderState(db, order)).status === 'canceled') {
      throw refuse(400, 'Este Pix foi cancelado pela loja. Fale com a loja se ainda quiser comprar.');
    }
    try {
      await renewOrderCharge(db, payments, order);
    } catch (error) {
      if (error instanceof CouponRefused) {
        throw refuse(400, `${error.message} Faça um novo pedido para comprar sem o cupom.`, {
          coupon: error.message,
        });
      }
      throw chargeRefusal(request, order.store_id, error);
    }
    feed.orderChanged(order.id);
    return statusJson(order);
  });

  /** The payment whose 3-D Secure page this is, and the page of its order (null: an API payment). */
  async function actionOr404(
    token: string,
  ): Promise<{ payment: CardPaymentsTable; orderPage: string | null }> {
    const payment = ACTION_TOKEN_PATTERN.test(token)
      ? await findCardPaymentByActionToken(db, hashActionToken(token))
      : undefined;
    if (!payment) throw refuse(404, 'Pagamento não encontrado.');
    const order =
      payment.order_id === null ? undefined : await findOrder(db, payment.store_id, payment.order_id);
    const url = order ? orderUrl(config, order) : null;
    return { payment, orderPage: url === null ? null : new URL(url).pathname };
  }

  app.get('/3ds/:token', { schema: { ...hide, params: TokenParams } }, async (request, reply) => {
    let found;
    try {
      found = await actionOr404(request.params.token);
    } catch (error) {
      if (error instanceof ApiError && error.statusCode === 404) return notFoundPage(reply);
      throw error;
    }
    const { payment, orderPage } = found;
    if (payment.status !== 'requires_action') {
      // Decided: the order's page tells the rest; a payment made through the API gets a plain answer.
      if (orderPage) return reply.redirect(orderPage, 303);
      const outcome = cardOutcomeText(
        payment.status,
        payment.status === 'declined' ? declineMessageOf(payment) : null,
      );
      return messagePage(reply, 200, outcome.title, outcome.text);
    }
    const store = await findStore(db, payment.store_id);
    const base = `${PURCHASE_PAGE_PREFIX}/3ds/${request.params.token}`;
    const challenge =
      payment.provider === 'mercadopago' && payment.challenge !== null
        ? (JSON.parse(payment.challenge) as { url: string; creq: string })
        : null;
    const challengeOrigin = challenge ? httpOrigin(challenge.url) : null;
    const nonce = newNonce();
    const html = renderPage(
      h(ThreeDSecurePage, {
        nonce,
        assets,
        testMode: payment.livemode === 0,
        storeName: store?.name ?? '',
        totalCents: payment.total_amount_cents,
        simulate: payment.provider === 'simulated' ? { url: base } : null,
        challenge: challenge && challengeOrigin ? challenge : null,
        statusUrl: `${base}/status`,
      }),
    );
    let csp = pageCsp(nonce, [], { connect: connectSources(request, [base, `${base}/status`]) });
    // The issuer's challenge: its origin only, and only on this page, may be framed and posted to.
    if (challengeOrigin)
      csp = widenCsp(csp, { 'frame-src': [challengeOrigin], 'form-action': [challengeOrigin] });
    return sendHtml(reply, 200, csp, html);
  });

  app.get('/3ds/:token/status', { schema: { ...hide, params: TokenParams } }, async (request, reply) => {
    const { payment, orderPage } = await actionOr404(request.params.token);
    return reply.header('cache-control', 'no-store').send({
      status: payment.status,
      redirect: orderPage ?? `${PURCHASE_PAGE_PREFIX}/3ds/${request.params.token}`,
    });
  });

  app.post(
    '/3ds/:token',
    { schema: { ...hide, params: TokenParams, body: ThreeDsBody } },
    async (request) => {
      const { payment, orderPage } = await actionOr404(request.params.token);
      await rateLimited(request, payment.store_id, limits.orders);
      if (payment.provider !== 'simulated' || payment.livemode === 1)
        throw refuse(400, 'Esta autenticação é feita pelo banco emissor, não por esta página.');
      if (payment.status !== 'requires_action')
        throw refuse(400, 'Este pagamento não está mais aguardando autenticação.');
      await simulateThreeDSecure(db, payment, request.body.result, testCardLinks);
      return { redirect: orderPage ?? `${PURCHASE_PAGE_PREFIX}/3ds/${request.params.token}` };
    },
  );
}
