import { beforeAll, expect, it } from 'vitest';
import { recordEvent } from '../../src/platform/outbox/outbox.js';
import { jobRow } from '../../src/domain/webhooks/delivery-jobs.js';
import type { HttpsReceiver } from '../support/https-receiver.js';
import { describeEachDatabase } from '../support/test-api.js';
import {
  allowedHosts,
  createEndpoint,
  deliveriesOf,
  eventually,
  expectValidSignature,
  requestsTo,
  useReceiverAndWorker,
  uniqueUrl,
} from './delivery-harness.js';

const DELIVERY_KEYS = [
  'attempt',
  'created_at',
  'delivered_at',
  'error',
  'event_id',
  'event_type',
  'failed_at',
  'id',
  'next_retry_at',
  'object',
  'response_status',
];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeEachDatabase(
  'webhook delivery to a real HTTPS receiver',
  (api) => {
    const delivery = useReceiverAndWorker(api);
    let receiver: HttpsReceiver;
    let key: string;
    let storeId: string;
    let url: string;

    beforeAll(() => {
      receiver = delivery.receiver();
    });

    /** Each test gets a store and a receiver path of its own. */
    async function freshStore() {
      ({ key, storeId } = await api.createStore());
      url = uniqueUrl(receiver);
    }
    const createCheckout = async () => (await api.as(key).post('/checkouts', { name: 'Loja' })).body;

    it('POSTs the stored event, signed, with the documented headers, and records the attempt', async () => {
      await freshStore();
      const endpoint = await createEndpoint(api, key, url);
      const checkout = await createCheckout();
      const [request] = await eventually(
        async () => requestsTo(receiver, url).length > 0 && requestsTo(receiver, url),
      );
      const stored = await api.db
        .selectFrom('events')
        .selectAll()
        .where('type', '=', 'checkout.created')
        .where('id', '=', String(request!.headers['service-event-id']))
        .executeTakeFirstOrThrow();

      expect(request!.method).toBe('POST');
      expect(request!.body).toBe(stored.payload); // byte for byte
      expect(JSON.parse(request!.body).data.object.id).toBe(checkout.id);
      expect(request!.headers['content-type']).toBe('application/json');
      expect(request!.headers['user-agent']).toBe('Storefront-Webhooks/1.0');
      expect(request!.headers['service-event-id']).toMatch(/^evt_/);
      expectValidSignature(request!, endpoint.secret);
      expect(String(request!.headers['service-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

      const [delivery] = await deliveriesOf(api, key, endpoint.id, 1);
      expect(Object.keys(delivery).sort()).toEqual(DELIVERY_KEYS);
      expect(delivery).toMatchObject({
        object: 'webhook_delivery',
        event_id: stored.id,
        event_type: 'checkout.created',
        attempt: 1,
        response_status: 200,
        error: null,
        failed_at: null,
        next_retry_at: null,
      });
      expect(delivery.id).toMatch(/^whd_/);
      expect(delivery.delivered_at >= delivery.created_at).toBe(true);
    });

    it('retries a 500 on the schedule; the history shows both attempts, newest first', async () => {
      await freshStore();
      const endpoint = await createEndpoint(api, key, url);
      receiver.respondWith({ status: 500, body: 'down' });
      await createCheckout();
      const [second, first] = await deliveriesOf(api, key, endpoint.id, 2);
      expect(first).toMatchObject({
        attempt: 1,
        response_status: 500,
        error: 'answered 500; only a 2xx counts as delivered',
        delivered_at: null,
      });
      expect(first.failed_at).not.toBeNull();
      expect(first.next_retry_at).not.toBeNull();
      // 100 ms ±10 % after the failure
      const gap = Date.parse(first.next_retry_at) - Date.parse(first.failed_at);
      expect(gap).toBeGreaterThanOrEqual(89);
      expect(gap).toBeLessThanOrEqual(111);
      expect(second).toMatchObject({
        attempt: 2,
        response_status: 200,
        failed_at: null,
        next_retry_at: null,
      });
      expect(second.event_id).toBe(first.event_id);
      const requests = requestsTo(receiver, url);
      expect(requests).toHaveLength(2);
      expect(requests[0]!.body).toBe(requests[1]!.body);
      expect(new Set(requests.map((r) => r.headers['service-event-id'])).size).toBe(1);
    });

    it('stops after the schedule: 1 + 2 retries, the last one without a next retry', async () => {
      await freshStore();
      const endpoint = await createEndpoint(api, key, url);
      receiver.respondWith({ status: 503 }, { status: 404 }, { status: 400 });
      await createCheckout();
      const history = await deliveriesOf(api, key, endpoint.id, 3);
      expect(history.map((d) => [d.attempt, d.response_status])).toEqual([
        [3, 400],
        [2, 404],
        [1, 503],
      ]);
      expect(history[0].next_retry_at).toBeNull();
      await sleep(400);
      expect(requestsTo(receiver, url)).toHaveLength(3);
      const jobs = await api.db
        .selectFrom('webhook_jobs')
        .select('id')
        .where('endpoint_id', '=', endpoint.id)
        .execute();
      expect(jobs).toEqual([]);
    });

    it('treats a redirect as a failure and never follows its Location', async () => {
      await freshStore();
      const endpoint = await createEndpoint(api, key, url);
      const elsewhere = `${receiver.url}/elsewhere-${Date.now()}`;
      receiver.respondWith({ redirect: elsewhere, status: 307 });
      await createCheckout();
      const [second, first] = await deliveriesOf(api, key, endpoint.id, 2);
      expect(first).toMatchObject({ attempt: 1, response_status: 307, delivered_at: null });
      expect(first.error).toBe('answered 307: redirects are not followed; use the final URL');
      expect(second).toMatchObject({ attempt: 2, response_status: 200 });
      expect(requestsTo(receiver, elsewhere)).toEqual([]);
    });

    it('fails an attempt that gets no answer within the timeout, with a null response_status', async () => {
      await freshStore();
      const endpoint = await createEndpoint(api, key, url);
      receiver.respondWith({ hang: true });
      await createCheckout();
      const [second, first] = await deliveriesOf(api, key, endpoint.id, 2);
      expect(first).toMatchObject({
        attempt: 1,
        response_status: null,
        error: 'no answer within 1000 ms',
        delivered_at: null,
      });
      const took = Date.parse(first.failed_at) - Date.parse(first.created_at);
      expect(took).toBeGreaterThanOrEqual(950);
      expect(second).toMatchObject({ attempt: 2, response_status: 200 });
    });

    it('records a refused connection as the reason, without the address', async () => {
      await freshStore();
      // The receiver's own allowed host, on the other permitted port, where nothing listens.
      const closed = `https://${receiver.host}:443/nothing-here`;
      const endpoint = await createEndpoint(api, key, closed);
      await createCheckout();
      const [first] = await deliveriesOf(api, key, endpoint.id, 1);
      expect(first).toMatchObject({
        attempt: 1,
        response_status: null,
        error: 'connection refused: nothing accepts connections at that address and port',
      });
      const stored = await api.db
        .selectFrom('webhook_deliveries')
        .select('error')
        .where('id', '=', first.id)
        .executeTakeFirstOrThrow();
      expect(stored.error).toBe(first.error);
      expect(first.error).not.toContain(receiver.host);
    });

    it('sends nothing to paused endpoints, nor later what happened while they were paused', async () => {
      await freshStore();
      const pausedUrl = uniqueUrl(receiver);
      const active = await createEndpoint(api, key, url);
      const paused = await createEndpoint(api, key, pausedUrl, { status: 'paused' });
      await createCheckout();
      await deliveriesOf(api, key, active.id, 1);
      await api.as(key).patch(`/webhooks/${paused.id}`, { status: 'active' });
      await createCheckout();
      await deliveriesOf(api, key, active.id, 2);
      const [after] = await deliveriesOf(api, key, paused.id, 1);
      await sleep(300);
      expect(requestsTo(receiver, pausedUrl)).toHaveLength(1); // only the event after resuming
      expect(requestsTo(receiver, url)).toHaveLength(2);
      expect(after.event_id).toBe(JSON.parse(requestsTo(receiver, url)[1]!.body).id);
    });

    it('drops a queued job without an attempt once its endpoint is paused', async () => {
      await freshStore();
      const endpoint = await createEndpoint(api, key, url);
      await api.as(key).patch(`/webhooks/${endpoint.id}`, { status: 'paused' });
      // A retry that was already queued when the endpoint was paused.
      const job = await api.db.transaction().execute(async (trx) => {
        const event = await recordEvent(trx, {
          storeId,
          type: 'checkout.created',
          livemode: false,
          object: {},
        });
        const row = jobRow({ storeId, endpointId: endpoint.id, eventId: event.id, attempts: 1 });
        await trx.insertInto('webhook_jobs').values(row).execute();
        return row;
      });
      await eventually(async () => {
        const left = await api.db.selectFrom('webhook_jobs').select('id').where('id', '=', job.id).execute();
        return left.length === 0;
      });
      expect(requestsTo(receiver, url)).toEqual([]);
      expect((await api.as(key).get(`/webhooks/${endpoint.id}/deliveries`)).body.data).toEqual([]);
    });

    it('test sends a signed webhook.test to that endpoint only', async () => {
      await freshStore();
      const otherUrl = uniqueUrl(receiver);
      const endpoint = await createEndpoint(api, key, url);
      await createEndpoint(api, key, otherUrl, { events: ['checkout.created', 'sale.approved', 'pix.paid'] });
      const res = await api.as(key).post(`/webhooks/${endpoint.id}/test`);
      expect(res.status).toBe(202);
      const [delivery] = await deliveriesOf(api, key, endpoint.id, 1);
      expect(delivery).toMatchObject({
        event_id: res.body.event_id,
        event_type: 'webhook.test',
        response_status: 200,
      });
      const [request] = requestsTo(receiver, url);
      expectValidSignature(request!, endpoint.secret);
      expect(JSON.parse(request!.body)).toMatchObject({ id: res.body.event_id, type: 'webhook.test' });
      await sleep(300);
      expect(requestsTo(receiver, otherUrl)).toEqual([]);
    });

    it('retry resends that event now as a new attempt (202)', async () => {
      await freshStore();
      const endpoint = await createEndpoint(api, key, url);
      await createCheckout();
      const [delivery] = await deliveriesOf(api, key, endpoint.id, 1);
      const res = await api.as(key).post(`/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`);
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        object: 'webhook_delivery_retry',
        endpoint_id: endpoint.id,
        delivery_id: delivery.id,
        event_id: delivery.event_id,
      });
      const [resent] = await deliveriesOf(api, key, endpoint.id, 2);
      expect(resent).toMatchObject({ event_id: delivery.event_id, attempt: 2, response_status: 200 });
      expect(requestsTo(receiver, url)).toHaveLength(2);

      expect((await api.as(key).post(`/webhooks/${endpoint.id}/deliveries/whd_nope/retry`)).status).toBe(404);
      expect((await api.as(key).post(`/webhooks/${endpoint.id}/deliveries/bad/retry`)).status).toBe(404);
      await api.as(key).patch(`/webhooks/${endpoint.id}`, { status: 'paused' });
      expect(
        (await api.as(key).post(`/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`)).status,
      ).toBe(400);
    });

    it('keeps only the last 20 attempts per endpoint, and the history after DELETE', async () => {
      await freshStore();
      const endpoint = await createEndpoint(api, key, url);
      for (let i = 0; i < 25; i++) await createCheckout();
      await eventually(async () => requestsTo(receiver, url).length >= 25);
      // Every attempt recorded (a recorded attempt's job is gone in the same write), then trimmed:
      // 20 rows alone can be a moment between a trim and the next results.
      const rows = await eventually(async () => {
        const jobs = await api.db
          .selectFrom('webhook_jobs')
          .select('id')
          .where('endpoint_id', '=', endpoint.id)
          .execute();
        const r = await api.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('endpoint_id', '=', endpoint.id)
          .execute();
        return jobs.length === 0 && r.length === 20 && r;
      });
      expect(rows).toHaveLength(20);
      const page = await api.as(key).get(`/webhooks/${endpoint.id}/deliveries?limit=100`);
      expect(page.body.data).toHaveLength(20);
      expect(page.body.has_more).toBe(false);
      const times = page.body.data.map((d: any) => d.created_at);
      expect([...times].sort().reverse()).toEqual(times);

      expect((await api.as(key).delete(`/webhooks/${endpoint.id}`)).status).toBe(200);
      const after = await api.as(key).get(`/webhooks/${endpoint.id}/deliveries?limit=100`);
      expect(after.status).toBe(200);
      expect(after.body.data).toEqual(page.body.data);
    });

    it('disables an endpoint whose attempts have all failed for 5 days; a success ends the run', async () => {
      await freshStore();
      const endpoint = await createEndpoint(api, key, url);
      receiver.respondWith({ status: 200 });
      await createCheckout();
      await deliveriesOf(api, key, endpoint.id, 1);
      const row = () =>
        api.db
          .selectFrom('webhook_endpoints')
          .selectAll()
          .where('id', '=', endpoint.id)
          .executeTakeFirstOrThrow();
      expect((await row()).failing_since).toBeNull();

      const sixDaysAgo = new Date(Date.now() - 6 * 86_400_000).toISOString();
      await api.db
        .updateTable('webhook_endpoints')
        .set({ failing_since: sixDaysAgo })
        .where('id', '=', endpoint.id)
        .execute();
      receiver.respondWith({ status: 500 });
      await createCheckout();
      await eventually(
        async () => (await api.as(key).get(`/webhooks/${endpoint.id}`)).body.status === 'disabled',
      );
      // Disabled endpoints get nothing more, not even the pending retry.
      await sleep(400);
      expect(requestsTo(receiver, url)).toHaveLength(2);

      const reenabled = await api.as(key).patch(`/webhooks/${endpoint.id}`, { status: 'active' });
      expect(reenabled.body.status).toBe('active');
      expect((await row()).failing_since).toBeNull();
    });
  },
  { config: { webhookAllowedHosts: allowedHosts } },
);
