// One whole purchase as a buyer's browser or a merchant's backend makes it, step by step, over a
// keep-alive undici pool (a load generator that costs little CPU); and the same requests replayed
// against the bare baseline (`/<status>/<bytes>`, bench/lib/baseline-server.mjs).
import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { importServerDependency } from './paths.mjs';

const { Pool } = await importServerDependency('undici');

const USER_AGENT = 'Mozilla/5.0 (Linux; Android 14) storefront-bench';
const BUYER = { name: 'Maria da Silva', email: 'maria@example.com', document: '52998224725' };
const CUSTOMER = { name: 'Maria da Silva', email: 'maria@example.com', document: '529.982.247-25' };
const json = (headers) => ({ ...headers, 'content-type': 'application/json' });

/** The page's order, as the page's script posts it (browser/page.ts): the buyer, no bump, no tracking. */
const pageOrder = (paying = {}) => JSON.stringify({ ...BUYER, bump: false, tracking: {}, ...paying });

/** The path of an order page from the `order_url` the order POST answered (relative already). */
const orderPathOf = (answer) => new URL(JSON.parse(answer).order_url, 'http://x').pathname;

/** The buyer opens the product's page, and later the order page the order answered (Pix and card alike). */
const PAGE_STEP = {
  name: 'page',
  request: (ctx) => ({ method: 'GET', path: ctx.pagePath, headers: ctx.browser }),
};
const ORDER_PAGE_STEP = {
  name: 'order page',
  request: (ctx, state) => ({ method: 'GET', path: state.orderPath, headers: ctx.browser }),
};

/*
 * A kind of purchase: its steps in order. A step makes its request from the context (the origin,
 * the product's page, the key) and what earlier steps learned (`state`), and `learn`s from the answer.
 * Page steps carry the page's own Origin on POSTs (the server refuses cross-origin posts) and a
 * browser's user agent; the page's script posts JSON with `fetch`.
 */
export const PURCHASE_KINDS = {
  page: {
    title: 'Pix on the hosted page: page, order, order page, "Simular pagamento"',
    steps: [
      PAGE_STEP,
      {
        name: 'order',
        request: (ctx) => ({
          method: 'POST',
          path: `${ctx.pagePath}/orders`,
          headers: json(ctx.browserPost),
          body: pageOrder(),
        }),
        learn: (state, text) => (state.orderPath = orderPathOf(text)),
      },
      ORDER_PAGE_STEP,
      {
        name: 'pay',
        request: (ctx, state) => ({
          method: 'POST',
          path: `${state.orderPath}/simulate`,
          headers: json(ctx.browserPost),
          body: '{}',
        }),
      },
    ],
  },
  api: {
    title: 'Pix through the API: POST /payments/pix, then simulate_payment',
    steps: [
      {
        name: 'create',
        request: (ctx) => ({
          method: 'POST',
          path: '/api/public/v1/payments/pix',
          headers: json({ ...ctx.api, 'idempotency-key': randomUUID() }),
          body: JSON.stringify({ amount: 97, description: 'Curso de Violão' }),
        }),
        learn: (state, text) => (state.chargeId = JSON.parse(text).id),
      },
      {
        name: 'pay',
        request: (ctx, state) => ({
          method: 'POST',
          path: `/api/public/v1/payments/pix/${state.chargeId}/simulate_payment`,
          headers: ctx.api,
        }),
      },
    ],
  },
  'card-page': {
    title: 'Card on the hosted page (simulated provider, tok_test_approved): page, order, order page',
    steps: [
      PAGE_STEP,
      {
        name: 'order',
        request: (ctx) => ({
          method: 'POST',
          path: `${ctx.pagePath}/orders`,
          headers: json(ctx.browserPost),
          body: pageOrder({ payment_method: 'card', card: { token: 'tok_test_approved', installments: 1 } }),
        }),
        learn: (state, text) => {
          const answer = JSON.parse(text);
          if (answer.card_payment?.status !== 'approved')
            throw new Error(`card order not approved: ${text.slice(0, 300)}`);
          state.orderPath = orderPathOf(text);
        },
      },
      ORDER_PAGE_STEP,
    ],
  },
  'card-api': {
    title: 'Card through the API (simulated provider, tok_test_approved): POST /payments/card',
    steps: [
      {
        name: 'create',
        request: (ctx) => ({
          method: 'POST',
          path: '/api/public/v1/payments/card',
          headers: json({ ...ctx.api, 'idempotency-key': randomUUID() }),
          body: JSON.stringify({
            amount: 97,
            installments: 1,
            card: { token: 'tok_test_approved' },
            customer: CUSTOMER,
            description: 'Curso de Violão',
          }),
        }),
        learn: (_state, text) => {
          if (JSON.parse(text).status !== 'approved')
            throw new Error(`card not approved: ${text.slice(0, 300)}`);
        },
      },
    ],
  },
};

/** What the steps need: the origin (for the page's Origin header), the product's page, the API key. */
export function purchaseContext({ origin, pagePath, key }) {
  const browser = { 'user-agent': USER_AGENT, accept: 'text/html,application/xhtml+xml' };
  return {
    pagePath,
    browser,
    browserPost: { 'user-agent': USER_AGENT, accept: '*/*', origin },
    api: { authorization: `Bearer ${key}` },
  };
}

/** A keep-alive pool of `connections` to `origin`; `close()` when done. */
export const httpPool = (origin, connections) =>
  new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });

/** One request on `pool`: its status and its answer as text. */
export async function send(pool, { method, path, headers, body }) {
  const res = await pool.request({ method, path, headers, body });
  const text = await res.body.text();
  return { status: res.statusCode, text };
}

/**
 * `requests[i]()` sent on `pool`, `concurrency` at a time, a non-2xx answer an error; `after(i, text)`
 * learns from each answer (a later step's path, say).
 */
export async function bulk(pool, requests, concurrency, after = () => undefined) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests.length) {
        const i = next++;
        const request = requests[i]();
        const { status, text } = await send(pool, request);
        if (status < 200 || status >= 300)
          throw new Error(`${request.method} ${request.path} answered ${status}: ${text.slice(0, 200)}`);
        after(i, text);
      }
    }),
  );
}

/**
 * One purchase of `kind` against the server: each step in turn, a non-2xx answer an error. Returns
 * each step's milliseconds, status and answer size in bytes.
 */
export async function purchaseOnce(pool, kind, ctx) {
  const state = {};
  const steps = [];
  for (const step of PURCHASE_KINDS[kind].steps) {
    const request = step.request(ctx, state);
    const started = performance.now();
    const { status, text } = await send(pool, request);
    const ms = performance.now() - started;
    if (status < 200 || status >= 300)
      throw new Error(
        `${kind}/${step.name}: ${request.method} ${request.path} answered ${status}: ${text.slice(0, 300)}`,
      );
    step.learn?.(state, text);
    steps.push({ name: step.name, ms, status, bytes: Buffer.byteLength(text) });
  }
  return steps;
}

/**
 * The same purchase against the baseline: each step's method, headers and body as the server got
 * them, to `/<status>/<bytes>` of the server's answer to that step (`sample`, from purchaseOnce).
 */
export async function baselinePurchaseOnce(pool, kind, ctx, sample) {
  // Later steps' paths come from earlier answers, which the baseline's do not hold: placeholders
  // stand in, as the path sent is `/<status>/<bytes>` anyway.
  const state = { orderPath: '/p/o/x', chargeId: 'pix_x' };
  const steps = [];
  for (const [i, step] of PURCHASE_KINDS[kind].steps.entries()) {
    const { method, headers, body } = step.request(ctx, state);
    const started = performance.now();
    const { status } = await send(pool, {
      method,
      path: `/${sample[i].status}/${sample[i].bytes}`,
      headers,
      body,
    });
    if (status !== sample[i].status) throw new Error(`baseline answered ${status} for ${step.name}`);
    steps.push({ name: step.name, ms: performance.now() - started, status, bytes: sample[i].bytes });
  }
  return steps;
}

/**
 * `count` purchases made by `concurrency` buyers at once (each buyer one purchase after another);
 * `once()` makes one. Returns every purchase's steps, the errors, and the wall time.
 */
export async function runPurchases({ once, count, concurrency, durationMs = Infinity }) {
  const purchases = [];
  const errors = [];
  let started = 0;
  const deadline = performance.now() + durationMs;
  const begin = performance.now();
  async function buyer() {
    while (started < count && performance.now() < deadline) {
      started++;
      try {
        purchases.push(await once());
      } catch (error) {
        errors.push(error.message);
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, buyer));
  return { purchases, errors, seconds: (performance.now() - begin) / 1000 };
}
