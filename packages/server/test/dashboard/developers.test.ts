import { beforeAll, expect, it } from 'vitest';
import { createSecretBox } from '../../src/platform/values/secret-box.js';
import { dashboardRequest, memberPerRole } from '../support/dashboard.js';
import type { DashboardSession } from '../support/dashboard.js';
import { auditOf } from '../support/store-records.js';
import { describeEachDatabase, TEST_SECRET } from '../support/test-api.js';
import type { HttpsReceiver } from '../support/https-receiver.js';
import {
  allowedHosts,
  deliveriesOf,
  eventually,
  expectValidSignature,
  requestsTo,
  uniqueUrl,
  useReceiverAndWorker,
} from '../webhooks/delivery-harness.js';

const PATH = '/dashboard/desenvolvedores';
const KEY_IN_PAGE = /value="(sk_(?:test|live)_[0-9A-Za-z]+)"/;
const SECRET_IN_PAGE = /value="(whsec_[0-9a-f]{64})"/;

describeEachDatabase(
  'dashboard Desenvolvedores',
  (api) => {
    const delivery = useReceiverAndWorker(api);
    let receiver: HttpsReceiver;
    let storeId: string;
    let owner: DashboardSession;
    let editor: DashboardSession;
    let viewer: DashboardSession;
    const members = memberPerRole(api);
    const post = (session: DashboardSession, path: string, form: Record<string, string> = {}) =>
      dashboardRequest(api.baseUrl, session, 'POST', `${PATH}${path}`, form);
    /** A POST with repeated fields (checkboxes), as a browser sends it. */
    const postPairs = (session: DashboardSession, path: string, pairs: [string, string][]) =>
      fetch(`${api.baseUrl}${PATH}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          cookie: session.cookie,
          origin: api.baseUrl,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams([...pairs, ['_csrf', session.csrf]]).toString(),
      }).then(async (r) => ({ status: r.status, text: await r.text() }));
    const get = (session: DashboardSession, path = '') =>
      dashboardRequest(api.baseUrl, session, 'GET', `${PATH}${path}`);

    beforeAll(async () => {
      receiver = delivery.receiver();
      ({ storeId } = await api.createStore({ name: 'Loja Dev' }));
      await members.signIn(storeId);
      ({ owner, editor, viewer } = members.sessions);
    });

    it('creates a key shown once that works on the API, and stops working when revoked', async () => {
      const created = await postPairs(owner, '/chaves', [
        ['mode', 'test'],
        ['scopes', 'checkouts:read'],
        ['scopes', 'products:read'],
      ]);
      expect(created.status).toBe(200);
      const key = KEY_IN_PAGE.exec(created.text)![1]!;
      expect(key).toMatch(/^sk_test_/);
      const row = await api.db
        .selectFrom('api_keys')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('display_prefix', '=', `${key.slice(0, 12)}…`)
        .executeTakeFirstOrThrow();
      expect(row.scopes).toBe('checkouts:read products:read');
      expect(row.key_hash).not.toContain(key);
      expect((await api.as(key).get('/checkouts')).status).toBe(200);
      // Scopes are what was ticked: no sales:read.
      expect((await api.as(key).get('/sales')).status).toBe(403);

      // Shown once: the list afterwards has its prefix only.
      const list = await get(owner);
      expect(list.text).toContain(row.display_prefix);
      expect(list.text).not.toContain(key);

      const revoked = await post(owner, `/chaves/${row.id}/revogar`);
      expect(revoked.status).toBe(303);
      // The API trusts a key lookup for up to 2 s: a revoked key stops working within 5 s.
      await eventually(async () => (await api.as(key).get('/checkouts')).status === 401, 5000);
      expect((await get(owner)).text).toContain('Revogada em');
      expect(await auditOf(api, storeId)).toEqual(
        expect.arrayContaining([
          `api_key_created: ${row.display_prefix} (test; checkouts:read products:read)`,
          `api_key_revoked: ${row.display_prefix}`,
        ]),
      );
    });

    it('"todas" grants every scope; no scope or a bad mode is refused and nothing is created', async () => {
      const count = async () =>
        (await api.db.selectFrom('api_keys').select('id').where('store_id', '=', storeId).execute()).length;
      const before = await count();
      const none = await postPairs(owner, '/chaves', [['mode', 'test']]);
      expect(none.status).toBe(400);
      expect(none.text).toContain('ao menos uma permissão');
      const unknown = await postPairs(owner, '/chaves', [
        ['mode', 'test'],
        ['scopes', 'tudo:write'],
      ]);
      expect(unknown.status).toBe(400);
      const mode = await postPairs(owner, '/chaves', [
        ['mode', 'prod'],
        ['scopes', 'all'],
      ]);
      expect(mode.status).toBe(400);
      expect(await count()).toBe(before);
      const all = await postPairs(owner, '/chaves', [
        ['mode', 'live'],
        ['scopes', 'all'],
      ]);
      expect(all.status).toBe(200);
      const key = KEY_IN_PAGE.exec(all.text)![1]!;
      expect(key).toMatch(/^sk_live_/);
      expect((await api.as(key).get('/sales')).status).not.toBe(403);
    });

    it('is owners only: editor and viewer get 403 on every page and action, nothing changes', async () => {
      const keys = await api.db.selectFrom('api_keys').select('id').where('store_id', '=', storeId).execute();
      const active = (
        await api.db
          .selectFrom('api_keys')
          .select('id')
          .where('store_id', '=', storeId)
          .where('revoked_at', 'is', null)
          .executeTakeFirstOrThrow()
      ).id;
      for (const session of [editor, viewer]) {
        expect((await get(session)).status).toBe(403);
        expect((await get(session, '/eventos')).status).toBe(403);
        expect(
          (
            await postPairs(session, '/chaves', [
              ['mode', 'test'],
              ['scopes', 'all'],
            ])
          ).status,
        ).toBe(403);
        expect((await post(session, `/chaves/${active}/revogar`)).status).toBe(403);
        const url = uniqueUrl(receiver);
        expect(
          (
            await postPairs(session, '/webhooks', [
              ['url', url],
              ['mode', 'test'],
              ['events', 'sale.approved'],
            ])
          ).status,
        ).toBe(403);
      }
      expect(
        await api.db.selectFrom('api_keys').select('id').where('store_id', '=', storeId).execute(),
      ).toEqual(keys);
      const stillActive = await api.db
        .selectFrom('api_keys')
        .select('revoked_at')
        .where('id', '=', active)
        .executeTakeFirstOrThrow();
      expect(stillActive.revoked_at).toBeNull();
      expect(
        await api.db.selectFrom('webhook_endpoints').select('id').where('store_id', '=', storeId).execute(),
      ).toEqual([]);
    });

    it("another store's key and endpoint are 404 by URL", async () => {
      const other = await api.createStore({ name: 'Outra' });
      const otherKey = await api.db
        .selectFrom('api_keys')
        .select('id')
        .where('store_id', '=', other.storeId)
        .executeTakeFirstOrThrow();
      expect((await post(owner, `/chaves/${otherKey.id}/revogar`)).status).toBe(404);
      expect((await api.as(other.key).get('/checkouts')).status).toBe(200);
      const res = await api
        .as(other.key)
        .post('/webhooks', { url: uniqueUrl(receiver), events: ['sale.approved'] });
      expect(res.status).toBe(201);
      expect((await get(owner, `/webhooks/${res.body.id}`)).status).toBe(404);
      expect((await post(owner, `/webhooks/${res.body.id}/teste`)).status).toBe(404);
      expect((await post(owner, `/webhooks/${res.body.id}/rotacionar`)).status).toBe(404);
      expect((await get(owner, '/webhooks/not-a-uuid')).status).toBe(404);
    });

    it("creates the API's endpoint (secret shown once); Enviar teste reaches the receiver signed; Reenviar; Rotacionar", async () => {
      const url = uniqueUrl(receiver);
      // The API's URL policy: http, another port, a private address are refused.
      for (const bad of ['http://example.com/h', 'https://example.com:9000/h', 'https://10.0.0.1/h']) {
        const res = await postPairs(owner, '/webhooks', [
          ['url', bad],
          ['mode', 'test'],
          ['events', 'sale.approved'],
        ]);
        expect(res.status, bad).toBe(400);
        expect(res.text).toContain('Endereço recusado');
      }
      const noEvents = await postPairs(owner, '/webhooks', [
        ['url', url],
        ['mode', 'test'],
      ]);
      expect(noEvents.status).toBe(400);
      expect(noEvents.text).toContain('ao menos um evento');

      const created = await postPairs(owner, '/webhooks', [
        ['url', url],
        ['mode', 'test'],
        ['events', 'sale.approved'],
        ['events', 'checkout.created'],
      ]);
      expect(created.status).toBe(200);
      const secret = SECRET_IN_PAGE.exec(created.text)![1]!;
      const row = await api.db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('url', '=', url)
        .executeTakeFirstOrThrow();
      expect(createSecretBox(TEST_SECRET).open(row.secret_sealed, row.id)).toBe(secret);
      // The API (a test key) sees it as its own endpoint.
      const apiKey = await api.createKey(storeId);
      const seen = await api.as(apiKey).get(`/webhooks/${row.id}`);
      expect(seen.status).toBe(200);
      expect(seen.body).toMatchObject({
        url,
        events: ['sale.approved', 'checkout.created'],
        status: 'active',
      });
      const page = await get(owner, `/webhooks/${row.id}`);
      expect(page.text).not.toContain(secret);

      const test = await post(owner, `/webhooks/${row.id}/teste`);
      expect(test.status).toBe(303);
      const [received] = await eventually(
        async () => requestsTo(receiver, url).length > 0 && requestsTo(receiver, url),
      );
      expect(JSON.parse(received!.body).type).toBe('webhook.test');
      expectValidSignature(received!, secret);

      const [attempt] = await deliveriesOf(api, apiKey, row.id, 1);
      const withAttempt = await get(owner, `/webhooks/${row.id}`);
      expect(withAttempt.text).toContain('entregue');
      expect((await post(owner, `/webhooks/${row.id}/entregas/whd_nao_existe/reenviar`)).status).toBe(404);
      expect((await post(owner, `/webhooks/${row.id}/entregas/${attempt.id}/reenviar`)).status).toBe(303);
      await eventually(async () => requestsTo(receiver, url).length > 1);

      const rotated = await post(owner, `/webhooks/${row.id}/rotacionar`);
      expect(rotated.status).toBe(200);
      const next = SECRET_IN_PAGE.exec(rotated.text)![1]!;
      expect(next).not.toBe(secret);
      const after = await api.db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('id', '=', row.id)
        .executeTakeFirstOrThrow();
      expect(createSecretBox(TEST_SECRET).open(after.secret_sealed, row.id)).toBe(next);
      expect((await get(owner, `/webhooks/${row.id}`)).text).not.toContain(next);
      expect(await auditOf(api, storeId)).toEqual(
        expect.arrayContaining([
          `webhook_created: ${url} (sale.approved, checkout.created)`,
          `webhook_secret_rotated: ${url}`,
          `webhook_retried: ${url} (${attempt.event_id})`,
        ]),
      );
    });

    it('lists events newest first, escaped, filtered by type, a page at a time', async () => {
      const hostile = '<script>alert("x")</script>';
      const apiKey = await api.createKey(storeId);
      expect((await api.as(apiKey).post('/checkouts', { name: hostile })).status).toBe(201);
      const page = await get(owner, '/eventos?tipo=checkout.created');
      expect(page.status).toBe(200);
      expect(page.text).toContain('checkout.created');
      expect(page.text).not.toContain(hostile);
      expect(page.text).toContain('&lt;script>');
      expect(page.text).not.toContain('<strong>webhook.test</strong>');
      // 51 more events: the first page shows 50 and links to the rest.
      for (let i = 0; i < 51; i++) await api.as(apiKey).post('/checkouts', { name: `lote ${i}` });
      const first = await get(owner, '/eventos?tipo=checkout.created');
      expect(first.text).toContain('lote 50');
      expect(first.text).not.toContain('&lt;script>');
      const next = /href="(\/dashboard\/desenvolvedores\/eventos\?[^"]+)"/
        .exec(first.text)![1]!
        .replace(/&amp;/g, '&');
      expect(next).toContain('tipo=checkout.created');
      const second = await dashboardRequest(api.baseUrl, owner, 'GET', next);
      expect(second.text).toContain('&lt;script>');
      expect(second.text).not.toContain('lote 50');
    });
  },
  { config: { webhookAllowedHosts: allowedHosts } },
);
