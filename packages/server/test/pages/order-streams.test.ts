import { afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { eventually } from '../webhooks/delivery-harness.js';
import { chargeOfOrder, createShop, pageRequest, placeOrder } from './page-support.js';
import type { Shop } from './page-support.js';
import { openStream } from './sse-client.js';
import type { OpenStream } from './sse-client.js';

/*
 * The order page's live status (Server-Sent Events, `GET /p/o/<token>/events`): how many streams one
 * order, one client and one process may hold open, when a stream ends, and what open streams cost the
 * database.
 */

const METRICS_TOKEN = 'metrics-token-for-order-streams';
const LIMITS = { perToken: 5, perIp: 50, perProcess: 60 };

/** Opened streams, closed after each test so none holds a slot into the next. */
const opened: OpenStream[] = [];
afterEach(() => {
  for (const stream of opened.splice(0)) stream.close();
});

async function stream(api: TestApi, token: string, from = '127.0.0.1'): Promise<OpenStream> {
  const opening = await openStream(api.baseUrl, token, from);
  opened.push(opening);
  return opening;
}

async function orders(api: TestApi, shop: Shop, count: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    const { res, token } = await placeOrder(api, shop);
    expect(res.status, res.text).toBe(201);
    tokens.push(token!);
  }
  return tokens;
}

/** Opens `count` streams on `token`, each one accepted and telling the order's status first. */
async function accepted(api: TestApi, token: string, count: number, from = '127.0.0.1') {
  for (let i = 0; i < count; i++) {
    const open = await stream(api, token, from);
    expect(open.status, open.text()).toBe(200);
    expect(open.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    await open.next((event) => event.event === 'status');
  }
}

async function expectRefused(api: TestApi, token: string, from = '127.0.0.1') {
  const refused = await stream(api, token, from);
  expect(refused.status).toBe(429);
  expect(refused.headers['retry-after']).toBe('30');
  // The refused connection is handed back at once: it holds no descriptor while the page polls.
  expect(refused.headers.connection).toBe('close');
  await refused.ended;
  expect(JSON.parse(refused.text()).error).toMatchObject({ code: 'rate_limited' });
}

async function closeAll(): Promise<void> {
  const all = opened.splice(0);
  for (const open of all) open.close();
  await Promise.all(all.map((open) => open.ended));
}

describeEachDatabase(
  'order page live status: limits on open streams',
  (api) => {
    let shop: Shop;
    beforeAll(async () => {
      shop = await createShop(api);
    });

    it('five streams per order token pass, the sixth is 429 with Retry-After; a closed one frees its slot', async () => {
      const [token, other] = await orders(api, shop, 2);
      await accepted(api, token!, LIMITS.perToken);
      await expectRefused(api, token!);
      // Another order of the same client is not held back by this one.
      await accepted(api, other!, 1);

      // An unknown token is a 404 each time: its slot is given back at once.
      for (let i = 0; i <= LIMITS.perToken; i++) {
        const unknown = await stream(api, 'AAAAAAAAAAAAAAAAAAAAAA');
        expect(unknown.status).toBe(404);
      }

      opened[0]!.close();
      await opened[0]!.ended;
      await eventually(async () => {
        const again = await stream(api, token!);
        return again.status === 200 || (again.close(), false);
      });
    });

    it('fifty streams per client IP pass, the fifty-first is 429; another IP still gets its own', async () => {
      const tokens = await orders(api, shop, 12);
      for (const token of tokens.slice(0, 10)) await accepted(api, token, LIMITS.perToken);
      await expectRefused(api, tokens[10]!);
      await accepted(api, tokens[10]!, 1, '127.0.0.2');
      await closeAll();
    });

    it('sixty streams per process (as configured) pass, the sixty-first is 429 whoever asks', async () => {
      const tokens = await orders(api, shop, 13);
      for (const token of tokens.slice(0, 10)) await accepted(api, token, LIMITS.perToken);
      await accepted(api, tokens[10]!, LIMITS.perToken, '127.0.0.2');
      await accepted(api, tokens[11]!, 5, '127.0.0.3');
      await expectRefused(api, tokens[12]!, '127.0.0.4');
      await closeAll();
      await eventually(async () => {
        const again = await stream(api, tokens[12]!, '127.0.0.4');
        return again.status === 200 || (again.close(), false);
      });
    });

    it('a paid order tells `paid` with its access link and ends the stream', async () => {
      const [token] = await orders(api, shop, 1);
      const open = await stream(api, token!);
      await open.next((event) => event.data.status === 'pending');
      const paid = await pageRequest(api, 'POST', `/p/o/${token}/simulate`, {});
      expect(paid.status, paid.text).toBe(200);
      const event = await open.next((event) => event.data.status === 'paid');
      expect(event).toEqual({
        event: 'status',
        data: {
          status: 'paid',
          expires_at: expect.any(String),
          access_links: [{ name: shop.product.nome, url: shop.product.link_acesso }],
          sale_id: expect.any(String),
          card: null,
        },
      });
      await open.ended;
      // A page opened later on a paid order is told so and let go at once.
      const late = await stream(api, token!);
      await late.ended;
      expect(late.events).toEqual([event]);
    });

    it('a canceled charge tells `canceled` and ends the stream', async () => {
      const [token] = await orders(api, shop, 1);
      const open = await stream(api, token!);
      await open.next((event) => event.data.status === 'pending');
      const cancel = await api.as(shop.key).post(`/payments/pix/${await chargeOfOrder(api, token!)}/cancel`);
      expect(cancel.status, cancel.text).toBe(200);
      await open.next((event) => event.data.status === 'canceled');
      await open.ended;
    });

    it('a change written by another process or node (no signal here) arrives through the shared poll', async () => {
      const [token] = await orders(api, shop, 1);
      const open = await stream(api, token!);
      await open.next((event) => event.data.status === 'pending');
      // Written straight to the database, as another node would: this process hears nothing of it.
      await api.db
        .updateTable('pix_charges')
        .set({ status: 'canceled', canceled_at: new Date().toISOString() })
        .where('id', '=', await chargeOfOrder(api, token!))
        .execute();
      await open.next((event) => event.data.status === 'canceled');
      await open.ended;
    });

    it('an expired Pix keeps the stream open: a new Pix for the order is told as pending again', async () => {
      const [token] = await orders(api, shop, 1);
      const open = await stream(api, token!);
      await open.next((event) => event.data.status === 'pending');
      const charge = await chargeOfOrder(api, token!);
      const expire = await api.as(shop.key).post(`/payments/pix/${charge}/simulate_expiration`);
      expect(expire.status, expire.text).toBe(200);
      await open.next((event) => event.data.status === 'expired');

      // Counted before asking: the stream may tell the new pending before the renew's answer arrives.
      const pending = open.events.length;
      const renewed = await pageRequest(api, 'POST', `/p/o/${token}/renew`, {});
      expect(renewed.status, renewed.text).toBe(200);
      await open.next((event) => open.events.indexOf(event) >= pending && event.data.status === 'pending');
      expect(await chargeOfOrder(api, token!)).not.toBe(charge);
    });
  },
  {
    config: {
      orderRateLimitPerMinute: 10_000,
      sse: { ...LIMITS, maxLifetimeMs: 600_000 },
    },
  },
);

describeEachDatabase(
  'order page live status: lifetime',
  (api) => {
    it('a stream ends after its lifetime with an `end` event, the order still pending', async () => {
      const shop = await createShop(api);
      const [token] = await orders(api, shop, 1);
      const open = await stream(api, token!);
      await open.next((event) => event.data.status === 'pending');
      await open.ended;
      expect(open.events.map((event) => event.event)).toEqual(['status', 'end']);
      expect(open.events[1]!.data).toEqual({ reason: 'lifetime' });
    });
  },
  { config: { sse: { ...LIMITS, maxLifetimeMs: 1500 } } },
);

/** `storefront_db_statements_total` from GET /metrics. */
async function statements(api: TestApi): Promise<number> {
  const res = await fetch(`${api.baseUrl}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  const text = await res.text();
  const match = /^storefront_db_statements_total (\d+)$/m.exec(text);
  if (!match) throw new Error(`no statement counter in /metrics:\n${text.slice(0, 500)}`);
  return Number(match[1]);
}

/** Statements the service runs during `ms` while nothing but the open streams is going on. */
async function statementsDuring(api: TestApi, ms: number): Promise<number> {
  const before = await statements(api);
  await new Promise((resolve) => setTimeout(resolve, ms));
  return (await statements(api)) - before;
}

describeEachDatabase(
  'order page live status: database cost',
  (api) => {
    it('forty open streams cost the database what one does: one shared read per tick', async () => {
      const shop = await createShop(api);
      const tokens = await orders(api, shop, 8);
      await accepted(api, tokens[0]!, 1);
      const one = await statementsDuring(api, 5000);

      await accepted(api, tokens[0]!, 4);
      for (const token of tokens.slice(1)) await accepted(api, token, 5);
      expect(opened).toHaveLength(40);
      const forty = await statementsDuring(api, 5000);

      // The shared reader reads every 2 s: two or three reads in 5 s (and the scrape's own), for one
      // stream or forty. A read per stream would be forty times that.
      expect(one).toBeGreaterThanOrEqual(2);
      expect(forty).toBeLessThanOrEqual(one + 3);
    });
  },
  {
    config: {
      orderRateLimitPerMinute: 10_000,
      metricsToken: METRICS_TOKEN,
      sse: { ...LIMITS, maxLifetimeMs: 600_000 },
    },
  },
);
