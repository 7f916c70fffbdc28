import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config/config.js';
import { countEmail } from '../../src/platform/metrics/metrics.js';
import { expireDueCharges } from '../../src/domain/pix/expiry-sweeper.js';
import { isoAfter } from '../../src/platform/values/time.js';
import { jobRow } from '../../src/domain/webhooks/delivery-jobs.js';
import { recordEvent } from '../../src/platform/outbox/outbox.js';
import { createShop, placeOrder } from '../pages/page-support.js';
import { TestApi, describeEachDatabase, expectError } from '../support/test-api.js';
import {
  allowedHosts,
  createEndpoint,
  eventually,
  uniqueUrl,
  useReceiverAndWorker,
} from '../webhooks/delivery-harness.js';

const TOKEN = 'metrics-token-0123456789abcdef';

/** `name{a="1",b="2"}` → value, for every sample line of an exposition. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

/** The sample's key as prom-client writes it: labels in the metric's declared order. */
const key = (name: string, labels: Record<string, string> = {}) => {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  return parts.length ? `${name}{${parts.join(',')}}` : name;
};

describeEachDatabase(
  'GET /metrics',
  (api) => {
    const scrape = async () => {
      const res = await api.request('GET', '//metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      return { text: res.text, values: samples(res.text) };
    };
    const value = async (name: string, labels?: Record<string, string>) =>
      (await scrape()).values.get(key(name, labels)) ?? 0;

    it('needs the bearer token: none, a wrong one, or another scheme is 401 unauthorized', async () => {
      for (const authorization of [
        undefined,
        'Bearer wrong-token-wrong-token-00',
        `Bearer ${TOKEN}x`,
        `Bearer ${TOKEN.slice(0, -1)}`,
        `Basic ${TOKEN}`,
        TOKEN,
      ]) {
        const res = await api.request(
          'GET',
          '//metrics',
          authorization ? { headers: { authorization } } : {},
        );
        expectError(res, 401, 'unauthorized');
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
        expect(res.text).not.toContain('storefront_');
      }
      // An API key is not the metrics token either.
      const { key: apiKey } = await api.createStore();
      expectError(await api.request('GET', '//metrics', { key: apiKey }), 401, 'unauthorized');
    });

    it('counts requests by route pattern and status, never by raw URL or id, with latency buckets', async () => {
      const { key: apiKey } = await api.createStore();
      const product = (
        await api
          .as(apiKey)
          .post('/products', { nome: 'Curso', preco: 10, link_acesso: 'https://a.example.com' })
      ).body;
      const route = '/api/public/v1/products/:id';
      const labels = { method: 'GET', route, status_code: '200' };
      const before = await value('storefront_http_request_duration_seconds_count', labels);
      await api.as(apiKey).get(`/products/${product.id}`);
      await api.as(apiKey).get(`/products/${product.id}`);
      const missing = await api.as(apiKey).get('/products/00000000-0000-4000-8000-000000000000');
      expect(missing.status).toBe(404);
      await api.request('GET', '//no-such-path-7d1f');
      await api.request('GET', '//healthz');

      const { text, values } = await scrape();
      expect(values.get(key('storefront_http_request_duration_seconds_count', labels))).toBe(before + 2);
      expect(
        values.get(key('storefront_http_request_duration_seconds_count', { ...labels, status_code: '404' })),
      ).toBeGreaterThanOrEqual(1);
      expect(
        values.get(key('storefront_http_request_duration_seconds_bucket', { le: '+Inf', ...labels })),
      ).toBe(before + 2);
      expect(values.get(key('storefront_http_request_duration_seconds_sum', labels))).toBeGreaterThan(0);
      expect(text).toContain('route="unmatched"');
      expect(text).toContain('route="/healthz",status_code="200"');
      expect(text).not.toContain(product.id);
      expect(text).not.toContain('no-such-path');
    });

    it('reports the webhook queue depth, the oldest due job’s age and the outbox backlog', async () => {
      const { storeId, key: apiKey } = await api.createStore();
      const { id: endpointId } = await createEndpoint(api, apiKey, 'https://hooks.example.com/metrics');
      // Recorded outside a transaction, an event waits for the worker's dispatcher (none runs here).
      const event = (
        await recordEvent(api.db, { storeId, type: 'checkout.created', livemode: false, object: {} })
      ).id;
      const count = async (table: 'webhook_jobs' | 'events') =>
        Number(
          (
            await api.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .$if(table === 'events', (q) => q.where('dispatched_at', 'is', null))
              .executeTakeFirstOrThrow()
          ).n,
        );

      const later = {
        ...jobRow({ storeId, endpointId, eventId: event }),
        next_attempt_at: isoAfter(3_600_000),
      };
      await api.db.insertInto('webhook_jobs').values(later).execute();
      let values = (await scrape()).values;
      expect(values.get('storefront_webhook_queue_jobs')).toBe(await count('webhook_jobs'));
      expect(values.get('storefront_webhook_queue_oldest_due_age_seconds')).toBe(0); // nothing due yet
      expect(values.get('storefront_events_undispatched')).toBe(await count('events'));
      expect(await count('events')).toBeGreaterThan(0);

      await api.db
        .updateTable('webhook_jobs')
        .set({ next_attempt_at: isoAfter(-90_000) })
        .where('id', '=', later.id)
        .execute();
      values = (await scrape()).values;
      expect(values.get('storefront_webhook_queue_oldest_due_age_seconds')).toBeGreaterThanOrEqual(90);
      expect(values.get('storefront_webhook_queue_oldest_due_age_seconds')).toBeLessThan(3600);
      await api.db.deleteFrom('webhook_jobs').where('id', '=', later.id).execute();
    });

    it('still answers when the queue cannot be read, with the queue gauges NaN (unknown)', async () => {
      await sql`alter table webhook_jobs rename to webhook_jobs_away`.execute(api.db);
      try {
        const { values } = await scrape();
        expect(values.get('storefront_webhook_queue_jobs')).toBeNaN();
        expect(values.get('storefront_webhook_queue_oldest_due_age_seconds')).toBeNaN();
        expect(values.get('process_cpu_user_seconds_total')).toBeGreaterThan(0);
      } finally {
        await sql`alter table webhook_jobs_away rename to webhook_jobs`.execute(api.db);
      }
      expect(Number.isNaN((await scrape()).values.get('storefront_webhook_queue_jobs'))).toBe(false);
    });

    it('counts Pix charges created, paid and expired by mode, after they commit', async () => {
      const { key: apiKey } = await api.createStore();
      const pix = (outcome: string) => value('storefront_pix_charges_total', { outcome, mode: 'test' });
      const before = {
        created: await pix('created'),
        paid: await pix('paid'),
        expired: await pix('expired'),
      };
      const paid = (await api.as(apiKey).post('/payments/pix', { amount: 10 })).body;
      const expiring = (await api.as(apiKey).post('/payments/pix', { amount: 11 })).body;
      expect((await api.as(apiKey).post(`/payments/pix/${paid.id}/simulate_payment`)).status).toBe(200);
      // A second payment is refused and counts nothing.
      expect((await api.as(apiKey).post(`/payments/pix/${paid.id}/simulate_payment`)).status).toBe(400);
      await api.db
        .updateTable('pix_charges')
        .set({ expires_at: isoAfter(-1000) })
        .where('id', '=', expiring.id)
        .execute();
      await expireDueCharges(api.db);
      expect(await pix('created')).toBe(before.created + 2);
      expect(await pix('paid')).toBe(before.paid + 1);
      expect(await pix('expired')).toBe(before.expired + 1);
    });

    it('counts a delivery e-mail skipped for want of SMTP_URL once its sale committed, and nothing without an address', async () => {
      const { key: apiKey } = await api.createStore();
      const skipped = () => value('storefront_emails_total', { outcome: 'skipped' });
      const before = await skipped();
      const pay = async (body: Record<string, unknown>) => {
        const charge = (await api.as(apiKey).post('/payments/pix', { amount: 10, ...body })).body;
        const paid = await api.as(apiKey).post(`/payments/pix/${charge.id}/simulate_payment`);
        expect(paid.status).toBe(200);
        return (await api.as(apiKey).get('/sales')).body.data.find((s: any) => s.pix_charge_id === charge.id);
      };
      const mailed = await pay({ customer: { email: 'compradora@example.com' } });
      expect(mailed.delivery_email.status).toBe('skipped');
      expect(await skipped()).toBe(before + 1);
      const unmailed = await pay({});
      expect(unmailed.delivery_email).toBeNull();
      expect(await skipped()).toBe(before + 1);
      // A free purchase-page order (100% coupon) approves its sale at once: counted the same way.
      const shop = await createShop(api);
      await api.as(shop.key).post('/coupons', { code: 'GRATIS', percent_off: 100 });
      expect((await placeOrder(api, shop, { coupon: 'GRATIS' })).res.status).toBe(201);
      expect(await skipped()).toBe(before + 2);
    });

    it('exposes e-mail outcomes, the database pool and the process metrics', async () => {
      const sent = await value('storefront_emails_total', { outcome: 'sent' });
      countEmail('sent');
      const { text, values } = await scrape();
      expect(values.get(key('storefront_emails_total', { outcome: 'sent' }))).toBe(sent + 1);
      expect(values.get('process_cpu_user_seconds_total')).toBeGreaterThan(0);
      expect(values.get('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
      if (api.dialect === 'postgres') {
        expect(values.get(key('storefront_db_pool_connections', { state: 'max' }))).toBe(10);
        expect(values.get(key('storefront_db_pool_connections', { state: 'in_use' }))).toBeGreaterThanOrEqual(
          0,
        );
        expect(values.get(key('storefront_db_pool_connections', { state: 'waiting' }))).toBe(0);
      } else {
        // SQLite has one connection and no pool to report.
        expect(text).not.toContain('storefront_db_pool_connections{');
      }
    });
  },
  { config: { metricsToken: TOKEN } },
);

describeEachDatabase(
  'webhook delivery outcomes in /metrics',
  (api) => {
    const delivery = useReceiverAndWorker(api);

    it('counts delivered, retrying and failed attempts', async () => {
      const scrape = async () =>
        samples(
          (await api.request('GET', '//metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).text,
        );
      const outcome = (values: Map<string, number>, name: string) =>
        values.get(key('storefront_webhook_deliveries_total', { outcome: name })) ?? 0;
      const { key: apiKey } = await api.createStore();
      const ok = await createEndpoint(api, apiKey, uniqueUrl(delivery.receiver()));
      const before = await scrape();
      expect((await api.as(apiKey).post(`/webhooks/${ok.id}/test`)).status).toBe(202);
      await eventually(async () => outcome(await scrape(), 'delivered') === outcome(before, 'delivered') + 1);

      // Three 500s: two retries on the test schedule, then the job gives up.
      delivery.receiver().respondWith({ status: 500 }, { status: 500 }, { status: 500 });
      await api.as(apiKey).post('/checkouts', { name: 'Falha' });
      const after = await eventually(async () => {
        const values = await scrape();
        return outcome(values, 'failed') === outcome(before, 'failed') + 1 && values;
      });
      expect(outcome(after, 'retrying')).toBe(outcome(before, 'retrying') + 2);
      expect(outcome(after, 'delivered')).toBe(outcome(before, 'delivered') + 1);
    });
  },
  { config: { metricsToken: TOKEN, webhookAllowedHosts: allowedHosts } },
);

describe('without STOREFRONT_METRICS_TOKEN', () => {
  const api = new TestApi('sqlite');
  beforeAll(() => api.start());
  afterAll(() => api.stop());

  it('has no /metrics: 404 not_found, whatever the credentials', async () => {
    expect(api.config.metricsToken).toBeNull();
    expectError(await api.request('GET', '//metrics'), 404, 'not_found');
    expectError(
      await api.request('GET', '//metrics', { headers: { authorization: `Bearer ${TOKEN}` } }),
      404,
      'not_found',
    );
  });

  it('takes a token of 16+ printable characters; anything shorter or with spaces names the variable', () => {
    const sqlite = `sqlite:${join(mkdtempSync(join(tmpdir(), 'sf-metrics-')), 'db.sqlite')}`;
    const token = (raw: string) =>
      loadConfig({ DATABASE_URL: sqlite, STOREFRONT_METRICS_TOKEN: raw }).metricsToken;
    expect(token('a'.repeat(16))).toBe('a'.repeat(16));
    for (const bad of ['a'.repeat(15), 'with space in the token', 'tab\tin-the-token-00']) {
      expect(() => token(bad)).toThrow(ConfigError);
      expect(() => token(bad)).toThrow(/^STOREFRONT_METRICS_TOKEN:/);
    }
  });
});
