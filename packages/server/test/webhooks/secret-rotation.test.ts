import { beforeAll, expect, it } from 'vitest';
import { verifyWebhook } from '../../../client/src/index.js';
import { Storefront } from '../../../client/src/index.js';
import { createSecretBox } from '../../src/platform/values/secret-box.js';
import { generateWebhookSecret } from '../../src/domain/webhooks/signature.js';
import type { HttpsReceiver, ReceivedRequest } from '../support/https-receiver.js';
import { TEST_SECRET, describeEachDatabase, expectError } from '../support/test-api.js';
import {
  allowedHosts,
  createEndpoint,
  eventually,
  requestsTo,
  uniqueUrl,
  useReceiverAndWorker,
} from './delivery-harness.js';

const ENDPOINT_KEYS = ['created_at', 'description', 'events', 'id', 'object', 'status', 'updated_at', 'url'];
const HOUR_MS = 3_600_000;
const secretBox = createSecretBox(TEST_SECRET);

/** The `v1=` values of a delivery's Service-Signature. */
const signaturesOf = (request: ReceivedRequest) =>
  String(request.headers['service-signature'])
    .split(',')
    .filter((part) => part.startsWith('v1='));

/** True when the official client accepts the delivery with this secret. */
function verifies(request: ReceivedRequest, secret: string): boolean {
  try {
    verifyWebhook({ headers: request.headers, rawBody: request.body, secret });
    return true;
  } catch {
    return false;
  }
}

describeEachDatabase(
  'webhook secret rotation',
  (api) => {
    const delivery = useReceiverAndWorker(api);
    let receiver: HttpsReceiver;
    let key: string;

    beforeAll(async () => {
      receiver = delivery.receiver();
      ({ key } = await api.createStore());
    });

    const rotate = (id: string, body?: unknown) => api.as(key).post(`/webhooks/${id}/rotate_secret`, body);
    const storedRow = (id: string) =>
      api.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    /** Sends a webhook.test to the endpoint and returns the delivery the receiver got. */
    async function deliverTest(endpointId: string, url: string): Promise<ReceivedRequest> {
      const before = requestsTo(receiver, url).length;
      const res = await api.as(key).post(`/webhooks/${endpointId}/test`);
      expect(res.status).toBe(202);
      const requests = await eventually(
        async () => requestsTo(receiver, url).length > before && requestsTo(receiver, url),
      );
      return requests[before]!;
    }

    it('answers 200 with the endpoint and a new secret, and keeps the old one sealed beside it', async () => {
      const url = uniqueUrl(receiver);
      const endpoint = await createEndpoint(api, key, url);
      const started = Date.now();
      const res = await rotate(endpoint.id, {});
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual([...ENDPOINT_KEYS, 'secret'].sort());
      expect(res.body).toMatchObject({ object: 'webhook_endpoint', id: endpoint.id, url, status: 'active' });
      expect(res.body.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
      expect(res.body.secret).not.toBe(endpoint.secret);

      const row = await storedRow(endpoint.id);
      // Both sealed at rest, bound to the endpoint; the default overlap is 24 hours.
      expect(row.secret_sealed).not.toContain(res.body.secret.slice(6));
      expect(row.previous_secret_sealed).toMatch(/^v1\./);
      expect(secretBox.open(row.secret_sealed, endpoint.id)).toBe(res.body.secret);
      expect(secretBox.open(row.previous_secret_sealed!, endpoint.id)).toBe(endpoint.secret);
      const expiresAt = Date.parse(row.previous_secret_expires_at!);
      expect(expiresAt).toBeGreaterThanOrEqual(started + 24 * HOUR_MS);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 24 * HOUR_MS);
      expect(row.updated_at).toBe(res.body.updated_at);
      // GET never shows a secret, old or new.
      const got = await api.as(key).get(`/webhooks/${endpoint.id}`);
      expect(got.text).not.toContain('whsec_');
    });

    it('replays a retried rotation with the same Idempotency-Key instead of rotating again, sealed at rest', async () => {
      const endpoint = await createEndpoint(api, key, uniqueUrl(receiver));
      const headers = { 'Idempotency-Key': `rotate-${endpoint.id}` };
      const first = await api.as(key).post(`/webhooks/${endpoint.id}/rotate_secret`, {}, headers);
      const retry = await api.as(key).post(`/webhooks/${endpoint.id}/rotate_secret`, {}, headers);
      expect(first.status).toBe(200);
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body).toEqual(first.body);
      const row = await storedRow(endpoint.id);
      expect(secretBox.open(row.secret_sealed, endpoint.id)).toBe(first.body.secret);
      expect(secretBox.open(row.previous_secret_sealed!, endpoint.id)).toBe(endpoint.secret);
      // The kept answer holds the new secret: it is sealed, never stored in clear.
      const kept = await api.db
        .selectFrom('idempotency_keys')
        .select('response_body')
        .where('key', '=', headers['Idempotency-Key'])
        .executeTakeFirstOrThrow();
      expect(kept.response_body).toMatch(/^v1\./);
      expect(kept.response_body).not.toContain(first.body.secret.slice(6));
    });

    it('takes expires_in_hours 0..168 as a whole number; anything else is 400 naming it', async () => {
      const { id } = await createEndpoint(api, key, uniqueUrl(receiver));
      for (const hours of [0, 1, 168]) {
        const started = Date.now();
        const res = await rotate(id, { expires_in_hours: hours });
        expect(res.status).toBe(200);
        const row = await storedRow(id);
        if (hours === 0) {
          expect(row.previous_secret_sealed).toBeNull();
          expect(row.previous_secret_expires_at).toBeNull();
        } else {
          const expiresAt = Date.parse(row.previous_secret_expires_at!);
          expect(expiresAt).toBeGreaterThanOrEqual(started + hours * HOUR_MS);
          expect(expiresAt).toBeLessThanOrEqual(Date.now() + hours * HOUR_MS);
        }
      }
      const before = await storedRow(id);
      for (const bad of [-1, 169, 1.5, '24', null]) {
        expectError(await rotate(id, { expires_in_hours: bad }), 400, 'invalid_request', 'expires_in_hours');
      }
      expectError(await rotate(id, { expires_at: 3 }), 400, 'invalid_request', 'expires_at');
      // Nothing changed by a refused rotation.
      expect(await storedRow(id)).toEqual(before);
    });

    it('needs webhooks:manage, and answers 404 for unknown, malformed, deleted and other stores’ endpoints', async () => {
      const { id } = await createEndpoint(api, key, uniqueUrl(receiver));
      const { storeId } = await api.createStore();
      const reader = await api.createKey(storeId, ['webhooks:read']);
      const own = await api.createKey(storeId, ['webhooks:manage']);
      expectError(await api.as(reader).post(`/webhooks/${id}/rotate_secret`, {}), 403, 'insufficient_scope');
      expectError(await api.as(own).post(`/webhooks/${id}/rotate_secret`, {}), 404, 'not_found');
      expectError(await rotate('3f1c2a9e-0000-4000-8000-000000000000', {}), 404, 'not_found');
      expectError(await rotate('not-an-id', {}), 404, 'not_found');
      await api.as(key).delete(`/webhooks/${id}`);
      expectError(await rotate(id, {}), 404, 'not_found');
      const row = await storedRow(id);
      expect(row.secret_sealed).toBe('');
      expect(row.previous_secret_sealed).toBeNull();
    });

    it('signs with both secrets until the old one expires: two v1=, each verified by the client', async () => {
      const url = uniqueUrl(receiver);
      const client = new Storefront({ apiKey: key, baseUrl: api.baseUrl });
      const endpoint = await client.webhookEndpoints.create({ url, events: ['checkout.created'] });
      const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id, { expires_in_hours: 2 });

      const during = await deliverTest(endpoint.id, url);
      expect(signaturesOf(during)).toHaveLength(2);
      expect(verifies(during, rotated.secret)).toBe(true);
      expect(verifies(during, endpoint.secret)).toBe(true);
      expect(verifies(during, generateWebhookSecret())).toBe(false);

      // The overlap ends: moved into the past here instead of waiting two hours.
      await api.db
        .updateTable('webhook_endpoints')
        .set({ previous_secret_expires_at: new Date(Date.now() - 1).toISOString() })
        .where('id', '=', endpoint.id)
        .execute();
      const after = await deliverTest(endpoint.id, url);
      expect(signaturesOf(after)).toHaveLength(1);
      expect(verifies(after, rotated.secret)).toBe(true);
      expect(verifies(after, endpoint.secret)).toBe(false);
    });

    it('a new rotation ends the earlier overlap (at most two secrets), and 0 stops the old one at once', async () => {
      const url = uniqueUrl(receiver);
      const first = await createEndpoint(api, key, url);
      const second = (await rotate(first.id, { expires_in_hours: 24 })).body.secret as string;
      const third = (await rotate(first.id, { expires_in_hours: 24 })).body.secret as string;

      const overlapping = await deliverTest(first.id, url);
      expect(signaturesOf(overlapping)).toHaveLength(2);
      expect(verifies(overlapping, third)).toBe(true);
      expect(verifies(overlapping, second)).toBe(true);
      expect(verifies(overlapping, first.secret)).toBe(false);

      const fourth = (await rotate(first.id, { expires_in_hours: 0 })).body.secret as string;
      const alone = await deliverTest(first.id, url);
      expect(signaturesOf(alone)).toHaveLength(1);
      expect(verifies(alone, fourth)).toBe(true);
      expect(verifies(alone, third)).toBe(false);
    });
  },
  { config: { webhookAllowedHosts: allowedHosts } },
);
