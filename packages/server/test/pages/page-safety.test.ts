import { get } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config/config.js';
import { newPixelId, setMeta } from '../conversions/meta-support.js';
import { describeEachDatabase } from '../support/test-api.js';
import { BUYER, createShop, pageRequest, placeOrder } from './page-support.js';
import type { Shop } from './page-support.js';

const HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>"\'&';

/** No markup from merchant text reaches the page: every hostile string appears only escaped. */
function expectNoInjectedMarkup(html: string): void {
  expect(html).not.toContain('<script>alert');
  expect(html).not.toContain('<img src=x');
  expect(html).not.toMatch(/javascript:/i);
  expect(html.match(/<script\b/g)).toHaveLength(1); // the page's own
  expect(html).toContain('&lt;script>alert(&quot;x&quot;)&lt;/script>');
}

describeEachDatabase(
  'purchase page safety',
  (api) => {
    let shop: Shop;
    beforeAll(async () => {
      shop = await createShop(api, {
        nome: HOSTILE,
        slug: 'hostil',
        descricao: HOSTILE,
        garantia: HOSTILE,
        link_acesso: 'javascript:alert(1)',
        order_bump_title: HOSTILE,
        order_bump_description: HOSTILE,
      });
      await api.as(shop.key).patch(`/checkouts/${shop.checkoutId}`, {
        settings_json: {
          checkout_titulo: HOSTILE,
          checkout_subtitulo: HOSTILE,
          checkout_descricao: HOSTILE,
          checkout_garantia: HOSTILE,
          checkout_logo_enabled: true,
          checkout_logo_url: 'https://img.example.com/logo.png?a=1&b="2"',
          checkout_fundo_tipo: 'imagem',
          checkout_fundo_imagem: 'http://bg.example.net/fundo.jpg',
        },
      });
      await api.db.updateTable('stores').set({ name: HOSTILE }).where('id', '=', shop.storeId).execute();
      // The API refuses such an image now; a row saved before that rule still must not reach the page.
      await api.db
        .updateTable('products')
        .set({ imagem: 'javascript:alert(1)' })
        .where('id', '=', shop.product.id)
        .execute();
    });

    it('escapes every merchant string and drops non-http(s) URLs on the product page', async () => {
      const res = await pageRequest(api, 'GET', shop.pagePath);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expectNoInjectedMarkup(res.text);
      expect(res.text).toContain('<html lang="pt-BR">');
      expect(res.text).toContain('src="https://img.example.com/logo.png?a=1&amp;b=%222%22"');
      expect(res.text).toContain('src="http://bg.example.net/fundo.jpg"');
      expect(res.text).not.toContain('class="product-image"'); // its imagem is javascript:
      // The API rejects such URLs where it types them as URLs.
      const bad = await api.as(shop.key).patch(`/checkouts/${shop.checkoutId}`, {
        settings_json: { checkout_banner_url: 'javascript:alert(1)' },
      });
      expect(bad.status).toBe(400);
    });

    it('escapes on the order page too, and never links a non-http(s) access link', async () => {
      await api.as(shop.key).post('/coupons', { code: 'GRATIS', percent_off: 100 });
      const { token } = await placeOrder(api, shop, { coupon: 'GRATIS' });
      const res = await pageRequest(api, 'GET', `/p/o/${token}`);
      expect(res.text).toContain('Pagamento confirmado!');
      expectNoInjectedMarkup(res.text);
      expect((await pageRequest(api, 'GET', `/p/o/${token}/status`)).json.access_links).toEqual([]);
    });

    it('sends a CSP with a fresh nonce on its script and style, no inline handlers, no framing, images from the page’s own origins', async () => {
      const first = await pageRequest(api, 'GET', shop.pagePath);
      const second = await pageRequest(api, 'GET', shop.pagePath);
      const csp = first.headers.get('content-security-policy')!;
      const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
      expect(second.headers.get('content-security-policy')).not.toContain(nonce);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain(`script-src 'nonce-${nonce}'`);
      expect(csp).toContain("script-src-attr 'none'");
      expect(csp).toContain("img-src 'self' data: https://img.example.com http://bg.example.net;");
      expect(csp).not.toContain('unsafe');
      expect(first.headers.get('x-frame-options')).toBe('DENY');
      const scripts = [...first.text.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
      expect(scripts).toHaveLength(1);
      expect(scripts[0]).toContain(`nonce="${nonce}"`);
      expect(scripts[0]).toMatch(/src="\/p\/assets\/page\.[0-9a-f]{12}\.js"/);
      for (const style of first.text.matchAll(/<style\b[^>]*>/g))
        expect(style[0]).toContain(`nonce="${nonce}"`);
      expect(first.text).not.toMatch(/\sstyle=/);
      expect(first.text).not.toMatch(/sk_(test|live)_/);
      // The second view is the same page (kept, not rendered again) under its own nonce only.
      const secondNonce = /'nonce-([^']+)'/.exec(second.headers.get('content-security-policy')!)![1]!;
      expect(second.text).not.toContain(nonce);
      expect(second.text.replaceAll(secondNonce, nonce)).toBe(first.text);
    });

    it('shows a change to the product, its bump, the checkout or the store on the very next view', async () => {
      const changing = await createShop(api, { slug: 'muda' }, 'Loja Antiga');
      const view = async () => (await pageRequest(api, 'GET', changing.pagePath)).text;
      expect(await view()).toContain('Loja Antiga');
      const as = api.as(changing.key);
      await as.patch(`/products/${changing.product.id as string}`, { nome: 'Curso Novo', preco: 123.45 });
      await as.patch(`/products/${changing.bump.id as string}`, { nome: 'Bônus Novo' });
      await as.patch(`/checkouts/${changing.checkoutId}`, {
        settings_json: { checkout_titulo: 'Título Novo' },
      });
      await api.db
        .updateTable('stores')
        .set({ name: 'Loja Nova' })
        .where('id', '=', changing.storeId)
        .execute();
      const after = await view();
      for (const shown of ['Curso Novo', '123,45', 'Bônus Novo', 'Título Novo', 'Loja Nova'])
        expect(after).toContain(shown);
      expect(after).not.toContain('Loja Antiga');
    });

    it('keeps a merchant image URL whose host holds `;` or `,` out of the page and of its CSP', async () => {
      const hostile = await createShop(
        api,
        { slug: 'csp-split', imagem: 'https://cdn.example.com;script-src-elem*/produto.png' },
        'Loja CSP',
      );
      const patched = await api.as(hostile.key).patch(`/checkouts/${hostile.checkoutId}`, {
        settings_json: {
          checkout_logo_enabled: true,
          checkout_logo_url: 'https://logo.example.com,x/logo.png',
          checkout_banner_enabled: true,
          checkout_banner_url: 'https://banner.example.com/a,b;c.png',
        },
      });
      expect(patched.status).toBe(200);
      const res = await pageRequest(api, 'GET', hostile.pagePath);
      expect(res.status).toBe(200);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).not.toContain(',');
      const directives = csp.split('; ').map((directive) => directive.split(' ')[0]);
      expect(directives).toEqual([
        'default-src',
        'base-uri',
        'connect-src',
        'form-action',
        'frame-ancestors',
        'img-src',
        'object-src',
        'script-src',
        'script-src-attr',
        'style-src',
      ]);
      // A `;` or `,` in the path is harmless (an origin has no path): that image stays.
      expect(csp).toContain("img-src 'self' data: https://banner.example.com;");
      expect(res.text).toContain('src="https://banner.example.com/a,b;c.png"');
      expect(res.text).not.toContain('cdn.example.com');
      expect(res.text).not.toContain('logo.example.com');
    });

    it('lets each page’s script reach its own URLs only: connect-src names them, never the dashboard', async () => {
      const connectOf = (res: { headers: Headers }) =>
        res.headers
          .get('content-security-policy')!
          .split('; ')
          .find((directive) => directive.startsWith('connect-src '))!;
      const product = await pageRequest(api, 'GET', shop.pagePath);
      const origin = api.baseUrl;
      expect(connectOf(product)).toBe(
        // A test store takes (simulated) cards: its installments, and an order's own Pix after a decline.
        `connect-src ${origin}${shop.pagePath}/orders ${origin}${shop.pagePath}/quote ${origin}${shop.pagePath}/installments ${origin}/p/o/`,
      );
      const { token } = await placeOrder(api, shop);
      const order = await pageRequest(api, 'GET', `/p/o/${token}`);
      expect(order.status).toBe(200);
      expect(connectOf(order)).toBe(
        `connect-src ${['status', 'events', 'simulate', 'renew'].map((end) => `${origin}/p/o/${token}/${end}`).join(' ')}`,
      );
      const missing = await pageRequest(api, 'GET', '/p/nada/aqui');
      expect(missing.status).toBe(404);
      expect(connectOf(missing)).toBe("connect-src 'none'");
      for (const res of [product, order, missing]) {
        expect(connectOf(res)).not.toContain("'self'");
        expect(connectOf(res)).not.toContain('/dashboard');
      }
      // The origin is the one the browser asked for; a Host no CSP can name leaves the page none.
      const odd = await new Promise<Headers>((resolve, reject) => {
        const url = new URL(`${api.baseUrl}${shop.pagePath}`);
        get({ host: url.hostname, port: url.port, path: url.pathname, headers: { host: 'x;y' } }, (res) => {
          res.resume();
          resolve(new Headers(res.headers as Record<string, string>));
        }).on('error', reject);
      });
      expect(connectOf({ headers: odd })).toBe("connect-src 'none'");
    });

    it('loads the store’s Meta browser pixel on its product page, never on an order page (its URL is the buyer’s key)', async () => {
      const pixelShop = await createShop(api, { slug: 'com-pixel' }, 'Loja com Pixel');
      const pixelId = newPixelId();
      await setMeta(api, pixelShop.key, { pixel_id: pixelId, access_token: 'EAAB-x', browser_pixel: true });
      const product = await pageRequest(api, 'GET', pixelShop.pagePath);
      expect(product.text).toContain(pixelId);
      expect(product.headers.get('content-security-policy')).toContain('https://connect.facebook.net');
      const { token } = await placeOrder(api, pixelShop);
      const order = await pageRequest(api, 'GET', `/p/o/${token}`);
      expect(order.status).toBe(200);
      expect(order.text).not.toContain(pixelId);
      expect(order.text).not.toMatch(/fbq|facebook/);
      expect(order.headers.get('content-security-policy')).not.toContain('facebook');
    });

    it('serves its assets under content-hashed names with long cache headers; the page stays small', async () => {
      const page = await pageRequest(api, 'GET', shop.pagePath);
      const css = /href="(\/p\/assets\/page\.[0-9a-f]{12}\.css)"/.exec(page.text)![1]!;
      const js = /src="(\/p\/assets\/page\.[0-9a-f]{12}\.js)"/.exec(page.text)![1]!;
      let bytes = Buffer.byteLength(page.text);
      for (const [path, type] of [
        [css, 'text/css'],
        [js, 'text/javascript'],
      ] as const) {
        const res = await pageRequest(api, 'GET', path);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toContain(type);
        expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        bytes += Buffer.byteLength(res.text);
      }
      expect(bytes).toBeLessThanOrEqual(60 * 1024);
    });

    it('refuses a POST without this origin with 403, writing nothing', async () => {
      const before = (await api.db.selectFrom('orders').select('id').execute()).length;
      const body = { ...BUYER, bump: false };
      for (const headers of [{}, { origin: 'https://evil.example' }, { origin: 'null' }] as Record<
        string,
        string
      >[]) {
        const res = await pageRequest(api, 'POST', `${shop.pagePath}/orders`, body, headers);
        expect(res.status).toBe(403);
        expect(res.json.error.code).toBe('invalid_request');
      }
      expect((await pageRequest(api, 'POST', `/p/o/AAAAAAAAAAAAAAAAAAAAAA/simulate`, {}, {})).status).toBe(
        403,
      );
      expect((await api.db.selectFrom('orders').select('id').execute()).length).toBe(before);
    });

    it('answers an HTML 404 page for unknown, inactive, archived-product and other-store paths and bad tokens', async () => {
      const other = await createShop(api, { slug: 'so-da-outra' }, 'Outra Loja');
      const inactive = (await api.as(shop.key).post('/products', { nome: 'Parado', preco: 5, ativo: false }))
        .body;
      const archived = (await api.as(shop.key).post('/products', { nome: 'Arquivado', preco: 5 })).body;
      await api.as(shop.key).post(`/products/${archived.id}/archive`);
      const paths = [
        `/p/${shop.handle}/nao-existe`,
        `/p/nao-existe-loja/${shop.product.slug}`,
        `/p/${shop.handle}/${inactive.slug}`,
        `/p/${shop.handle}/${archived.slug}`,
        `/p/${shop.handle}/so-da-outra`, // another store's product under this store's handle
        `/p/${shop.handle}/INVALID_SLUG`,
        '/p/o/AAAAAAAAAAAAAAAAAAAAAA',
        '/p/o/short',
        '/p/whatever/a/b/c',
      ];
      expect((await pageRequest(api, 'GET', `/p/${other.handle}/so-da-outra`)).status).toBe(200);
      for (const path of paths) {
        const res = await pageRequest(api, 'GET', path);
        expect(res.status, path).toBe(404);
        expect(res.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
        expect(res.text, path).toContain('Página não encontrada');
        expect(res.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
      }
      const order = await pageRequest(api, 'POST', `/p/${shop.handle}/${inactive.slug}/orders`, {
        ...BUYER,
        bump: false,
      });
      expect(order.status).toBe(404);
      expect((await pageRequest(api, 'GET', '/p/o/AAAAAAAAAAAAAAAAAAAAAA/status')).status).toBe(404);
    });

    it('gives order tokens of 128 random bits and stores only their hash', async () => {
      const { token } = await placeOrder(api, shop);
      expect(Buffer.from(token!, 'base64url')).toHaveLength(16);
      const rows = await api.db.selectFrom('orders').selectAll().execute();
      expect(JSON.stringify(rows)).not.toContain(token);
    });
  },
  { config: { orderRateLimitPerMinute: 1000 } },
);

describeEachDatabase(
  'purchase page order rate limit',
  (api) => {
    it('allows STOREFRONT_ORDER_RATE_LIMIT orders a minute per (IP, store), then 429 with Retry-After', async () => {
      const shop = await createShop(api);
      const other = await createShop(api, {}, 'Outra');
      for (let i = 0; i < 3; i++) expect((await placeOrder(api, shop)).res.status).toBe(201);
      const limited = (await placeOrder(api, shop)).res;
      expect(limited.status).toBe(429);
      expect(limited.json.error.code).toBe('rate_limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      // Another store is counted apart.
      expect((await placeOrder(api, other)).res.status).toBe(201);
    });

    it('allows as many quotes a minute per (IP, store), counted apart from orders, then 429 with Retry-After', async () => {
      const shop = await createShop(api);
      const quote = (coupon: string) =>
        pageRequest(api, 'POST', `${shop.pagePath}/quote`, { bump: false, coupon });
      for (const guess of ['AAA', 'BBB', 'CCC']) {
        const res = await quote(guess);
        expect(res.status).toBe(200);
        expect(res.json.coupon_error).toEqual(expect.any(String));
      }
      const limited = await quote('DDD');
      expect(limited.status).toBe(429);
      expect(limited.json.error.code).toBe('rate_limited');
      expect(limited.json.error.message).toMatch(/^Muitas tentativas\. Aguarde \d+ s/);
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // The quotes did not use up the orders.
      expect((await placeOrder(api, shop)).res.status).toBe(201);
    });
  },
  { config: { orderRateLimitPerMinute: 3 } },
);

describe('STOREFRONT_ORDER_RATE_LIMIT', () => {
  const env = { DATABASE_URL: 'sqlite::memory:', STOREFRONT_SECRET: 'x'.repeat(32) };
  it('defaults to 20 a minute, takes 1 and up, and stops the start on 0 or text naming the variable', () => {
    expect(loadConfig(env).orderRateLimitPerMinute).toBe(20);
    expect(loadConfig({ ...env, STOREFRONT_ORDER_RATE_LIMIT: '1' }).orderRateLimitPerMinute).toBe(1);
    expect(() => loadConfig({ ...env, STOREFRONT_ORDER_RATE_LIMIT: '0' })).toThrow(
      /STOREFRONT_ORDER_RATE_LIMIT/,
    );
    expect(() => loadConfig({ ...env, STOREFRONT_ORDER_RATE_LIMIT: 'lots' })).toThrow(
      /STOREFRONT_ORDER_RATE_LIMIT/,
    );
  });
});
