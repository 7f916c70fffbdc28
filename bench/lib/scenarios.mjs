// What each scenario sends. `make(ctx)` returns `next()`, called once per request, so ids,
// cursors, names and Idempotency-Keys vary per request as they would in production.
import { request, requestJson } from './http.mjs';

const PREFIX = '/api/public/v1';
const DESCRIPTION = 'Aulas gravadas, material em PDF e certificado. Produto criado pelo benchmark.';
const PIX_CHARGES_FOR_READS = 200;

const pick = (list) => list[Math.floor(Math.random() * list.length)];

const get = (ctx, path) => ({ method: 'GET', path: PREFIX + path, headers: ctx.headers });

function post(ctx, path, body) {
  const n = ++ctx.counter;
  return {
    method: 'POST',
    path: PREFIX + path,
    headers: { ...ctx.headers, 'content-type': 'application/json', 'idempotency-key': `${ctx.runId}-${n}` },
    body: JSON.stringify(typeof body === 'function' ? body(n) : body),
  };
}

const createProduct = (ctx) =>
  post(ctx, '/products', (n) => ({
    nome: `Produto bench ${ctx.runId} ${n}`,
    preco: 97.9,
    descricao: DESCRIPTION,
  }));
const createPix = (ctx) => post(ctx, '/payments/pix', { amount: 49.9, description: 'Pedido de carga' });

/** Walks the product list 100 at a time to the middle of the seeded products, through cursors. */
async function deepCursor(ctx) {
  const depth = Math.floor(ctx.productIds.length / 2);
  let cursor = null;
  for (let seen = 0; seen < depth; seen += 100) {
    const query = cursor ? `limit=100&starting_after=${encodeURIComponent(cursor)}` : 'limit=100';
    const page = await requestJson(`${ctx.origin}${PREFIX}/products?${query}`, { headers: ctx.headers });
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
  }
  return { cursor, depth };
}

async function pixCharges(ctx) {
  const ids = [];
  for (let i = 0; i < PIX_CHARGES_FOR_READS; i++) {
    const { method, path, headers, body } = createPix(ctx);
    ids.push((await requestJson(ctx.origin + path, { method, headers, body })).id);
  }
  return ids;
}

export const SCENARIOS = [
  {
    name: 'product-get',
    title: 'GET /products/{id}',
    needs: [['get', '/products/{id}']],
    targetRatio: 0.6,
    make: (ctx) => () => get(ctx, `/products/${pick(ctx.productIds)}`),
  },
  {
    name: 'product-list',
    title: 'GET /products?limit=20',
    needs: [['get', '/products']],
    targetRatio: 0.4,
    make: (ctx) => () => get(ctx, '/products?limit=20'),
  },
  {
    name: 'product-list-deep',
    title: 'GET /products?limit=20 deep cursor',
    needs: [['get', '/products']],
    targetRatio: 0.4,
    prepare: async (ctx) => {
      const { cursor, depth } = await deepCursor(ctx);
      ctx.deepCursor = cursor;
      return `cursor after ${depth} products`;
    },
    make: (ctx) => () => get(ctx, `/products?limit=20&starting_after=${encodeURIComponent(ctx.deepCursor)}`),
  },
  {
    name: 'product-create',
    title: 'POST /products (Idempotency-Key)',
    needs: [['post', '/products']],
    targetRatio: 0.3,
    make: (ctx) => () => createProduct(ctx),
  },
  {
    name: 'pix-create',
    title: 'POST /payments/pix (BR Code + QR)',
    needs: [['post', '/payments/pix']],
    targetRatio: null,
    make: (ctx) => () => createPix(ctx),
  },
  {
    name: 'pix-get',
    title: 'GET /payments/pix/{id}',
    needs: [
      ['post', '/payments/pix'],
      ['get', '/payments/pix/{id}'],
    ],
    targetRatio: null,
    prepare: async (ctx) => {
      ctx.pixIds = await pixCharges(ctx);
      return `${ctx.pixIds.length} charges created`;
    },
    make: (ctx) => () => get(ctx, `/payments/pix/${pick(ctx.pixIds)}`),
  },
  {
    name: 'checkout-get',
    title: 'GET /checkouts/{id}',
    needs: [['get', '/checkouts/{id}']],
    targetRatio: null,
    make: (ctx) => () => get(ctx, `/checkouts/${ctx.checkoutId}`),
  },
  {
    // The hosted purchase page (outside the API, no key): store by handle, active product by slug,
    // its checkout, the bump, and the HTML rendered from TSX with a fresh CSP nonce.
    name: 'page-get',
    title: 'GET /p/{handle}/{slug} (purchase page)',
    needs: [['get', '/checkouts/{id}']],
    targetRatio: null,
    prepare: async (ctx) => {
      const page = await requestJson(`${ctx.origin}${PREFIX}/products?limit=100&ativo=true`, {
        headers: ctx.headers,
      });
      ctx.pageSlugs = page.data.map((product) => product.slug);
      const probe = await request(`${ctx.origin}/p/${ctx.handle}/${ctx.pageSlugs[0]}`);
      if (probe.status !== 200) throw new Error(`the purchase page answered ${probe.status}`);
      return `${ctx.pageSlugs.length} product pages of /p/${ctx.handle}`;
    },
    make: (ctx) => () => ({ method: 'GET', path: `/p/${ctx.handle}/${pick(ctx.pageSlugs)}`, headers: {} }),
  },
];

/**
 * 80% reads, 20% writes, as a fixed cycle of ten requests each connection walks through:
 * 4 product reads, 2 list pages, 2 charge reads, 1 product creation, 1 charge creation.
 */
export const MIXED = {
  name: 'mixed',
  title: 'mixed 80% reads / 20% writes',
  needs: [
    ['get', '/products/{id}'],
    ['get', '/products'],
    ['post', '/products'],
    ['post', '/payments/pix'],
    ['get', '/payments/pix/{id}'],
  ],
  targetP99Ms: 25,
  prepare: async (ctx) => {
    if (!ctx.pixIds) ctx.pixIds = await pixCharges(ctx);
    return null;
  },
  make: (ctx) => {
    const productRead = () => get(ctx, `/products/${pick(ctx.productIds)}`);
    const list = () => get(ctx, '/products?limit=20');
    const pixRead = () => get(ctx, `/payments/pix/${pick(ctx.pixIds)}`);
    const cycle = [
      productRead,
      list,
      pixRead,
      productRead,
      () => createProduct(ctx),
      productRead,
      list,
      pixRead,
      productRead,
      () => createPix(ctx),
    ];
    let i = 0;
    return () => cycle[i++ % cycle.length]();
  },
};

/** Which of `needs` the running server does not serve yet, from its own OpenAPI document. */
export function missingRoutes(openapi, needs) {
  return needs.filter(([method, path]) => !openapi.paths?.[path]?.[method]).map(([m, p]) => `${m} ${p}`);
}
