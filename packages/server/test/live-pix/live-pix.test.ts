import { expect, it } from 'vitest';
import { parseBrCode } from '../../src/platform/brcode/index.js';
import { countRows, decodeQr, eventsFor } from '../pix/pix-test-helpers.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { testPki } from '../support/test-pki.js';
import {
  allowedHosts,
  eventually,
  requestsTo,
  uniqueUrl,
  useReceiverAndWorker,
} from '../webhooks/delivery-harness.js';
import { CHAVE, FAKE_PSP_ALLOWED_HOSTS, useLivePix } from './live-harness.js';
import type { LiveStore } from './live-harness.js';

/** Live charges are checked at the PSP every minute here: what changes a charge is a callback or a call. */
const SCHEDULE_MS = 60_000;

async function chargeRow(api: TestApi, id: string) {
  return api.db.selectFrom('pix_charges').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

describeEachDatabase(
  'Live Pix through a PSP speaking the API Pix (fake PSP over mTLS)',
  (api) => {
    const live = useLivePix(api);
    const delivery = useReceiverAndWorker(api);

    async function create(
      store: LiveStore,
      body: Record<string, unknown> = {},
      headers?: Record<string, string>,
    ) {
      return api.as(store.key).post('/payments/pix', { amount: 12.34, ...body }, headers);
    }

    /** Posts a callback the way a PSP does (with the `/pix` suffix) and waits until the reconciler asked the PSP. */
    async function callbackAndCheck(store: LiveStore, chargeId: string, body: unknown) {
      const row = await chargeRow(api, chargeId);
      const gets = () =>
        live.psp().requests.filter((r) => r.method === 'GET' && r.path === `/v2/cob/${row.txid}`).length;
      const before = gets();
      const url = live.psp().webhooks.get(CHAVE)!;
      const res = await fetch(`${url}/pix`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      // Checked, and back on its schedule (or settled): the reconciler is done with it.
      await eventually(async () => {
        const now = await chargeRow(api, chargeId);
        const onSchedule =
          now.next_check_at === null ||
          (Date.parse(now.next_check_at) - Date.parse(now.created_at)) % SCHEDULE_MS === 0;
        return gets() > before && onSchedule;
      });
    }

    it('creates the cob at the PSP with our txid and a body as the standard defines it; copy_paste is the PSP’s', async () => {
      const store = await live.liveStore();
      const description = 'á'.repeat(140) + 'cortado';
      const res = await create(store, {
        description: description.slice(0, 140),
        external_id: 'pedido-live-1',
        expires_in: 900,
        customer: { name: 'Maria da Silva', document: '529.982.247-25', email: 'maria@example.com' },
      });
      expect(res.status).toBe(201);
      const charge = res.body;
      expect(charge).toMatchObject({ status: 'pending', livemode: true, amount: 12.34, canceled_at: null });
      expect(charge.pix.txid).toMatch(/^[A-Za-z0-9]{26,35}$/);
      expect(charge.pix.txid).toBe(charge.id.replace('_', ''));

      const cob = live.psp().cobs.get(charge.pix.txid)!;
      expect(cob.status).toBe('ATIVA');
      const put = live
        .psp()
        .requests.find((r) => r.method === 'PUT' && r.path === `/v2/cob/${charge.pix.txid}`)!;
      expect(put.body).toEqual({
        calendario: { expiracao: 900 },
        valor: { original: '12.34' },
        chave: CHAVE,
        solicitacaoPagador: description.slice(0, 140),
        devedor: { cpf: '52998224725', nome: 'Maria da Silva' },
      });
      expect(put.clientCertificateCn).toBe('loja-teste.example');
      expect(put.authorization).toMatch(/^Bearer \S+$/);

      // The code the payer scans is the PSP's dynamic code, checked, and our QR renders exactly it.
      expect(charge.pix.copy_paste).toBe(cob.pixCopiaECola);
      const parsed = parseBrCode(charge.pix.copy_paste);
      expect(parsed).toMatchObject({ url: cob.location, amount: 12.34 });
      expect(decodeQr(charge.pix.qr_code_base64)).toBe(charge.pix.copy_paste);

      const [created] = await eventsFor(api, store.storeId, charge.id, 'pix.created');
      expect(created!.payload.livemode).toBe(true);
      // A test key never sees it.
      expectError(await api.as(store.testKey).get(`/payments/pix/${charge.id}`), 404, 'not_found');
    });

    it('a PSP payment arrives by callback: confirmed at the PSP, then pix.paid and sale.approved reach the merchant', async () => {
      const store = await live.liveStore();
      const receiver = delivery.receiver();
      const url = uniqueUrl(receiver);
      const endpoint = await api
        .as(store.key)
        .post('/webhooks', { url, events: ['pix.paid', 'sale.approved'] });
      expect(endpoint.status).toBe(201);
      const charge = (await create(store, { customer: { name: 'João', email: 'joao@example.com' } })).body;

      const e2eid = await live.psp().pay(charge.pix.txid);
      const callback = live.psp().callbacks.at(-1)!;
      expect(callback.url).toMatch(/\/callbacks\/pix\/[A-Za-z0-9_-]{43}\/pix$/);
      expect(callback.status).toBe(200);

      const received = await eventually(async () => {
        const requests = requestsTo(receiver, url);
        return requests.length >= 2 ? requests : undefined;
      });
      const types = received.map((r) => JSON.parse(r.body).type).sort();
      expect(types).toEqual(['pix.paid', 'sale.approved']);
      const paid = await api.as(store.key).get(`/payments/pix/${charge.id}`);
      expect(paid.body).toMatchObject({ status: 'paid', livemode: true });
      const sales = await api.as(store.key).get('/sales');
      expect(sales.body.data).toHaveLength(1);
      expect(sales.body.data[0]).toMatchObject({
        pix_charge_id: charge.id,
        status: 'approved',
        amount: 12.34,
        refund: null,
      });
      const sale = await api.db
        .selectFrom('sales')
        .selectAll()
        .where('pix_charge_id', '=', charge.id)
        .executeTakeFirstOrThrow();
      expect(sale.pix_end_to_end_id).toBe(e2eid);
      const [pixPaid] = await eventsFor(api, store.storeId, charge.id, 'pix.paid');
      const [approved] = await eventsFor(api, store.storeId, sale.id, 'sale.approved');
      expect(pixPaid!.row.created_at <= approved!.row.created_at).toBe(true);
      // The callback was kept.
      const kept = await api.db
        .selectFrom('pix_callbacks')
        .selectAll()
        .where('store_id', '=', store.storeId)
        .execute();
      expect(kept.map((c) => JSON.parse(c.txids))).toContainEqual([charge.pix.txid]);

      // The same callback again (PSPs retry) is kept, and applies nothing twice: the charge is settled.
      const again = await fetch(callback.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(callback.body),
      });
      expect(again.status).toBe(200);
      expect((await chargeRow(api, charge.id)).next_check_at).toBeNull();
      expect(
        await api.db.selectFrom('pix_callbacks').select('id').where('store_id', '=', store.storeId).execute(),
      ).toHaveLength(2);
      expect(await countRows(api, store.storeId)).toMatchObject({ charges: 1, sales: 1 });
      expect(await eventsFor(api, store.storeId, charge.id, 'pix.paid')).toHaveLength(1);
    });

    it('a forged callback changes nothing: the PSP says ATIVA, another amount or another key', async () => {
      const store = await live.liveStore();
      const forge = (txid: string) => ({
        pix: [
          {
            endToEndId: 'E12345678202611240000abcdefghijk',
            txid,
            valor: '12.34',
            horario: new Date().toISOString(),
          },
        ],
      });

      const active = (await create(store)).body;
      await callbackAndCheck(store, active.id, forge(active.pix.txid));
      expect((await chargeRow(api, active.id)).status).toBe('pending');

      const otherAmount = (await create(store)).body;
      live.psp().tamper(otherAmount.pix.txid, { status: 'CONCLUIDA', valor: '1.00' });
      await callbackAndCheck(store, otherAmount.id, forge(otherAmount.pix.txid));
      expect((await chargeRow(api, otherAmount.id)).status).toBe('pending');

      const otherKey = (await create(store)).body;
      live.psp().tamper(otherKey.pix.txid, { status: 'CONCLUIDA', chave: 'outra@chave.com.br' });
      await callbackAndCheck(store, otherKey.id, forge(otherKey.pix.txid));
      expect((await chargeRow(api, otherKey.id)).status).toBe('pending');

      expect(await countRows(api, store.storeId)).toMatchObject({ charges: 3, sales: 0 });
      expect(
        (
          await api.db.selectFrom('events').select('type').where('store_id', '=', store.storeId).execute()
        ).map((e) => e.type),
      ).toEqual(['pix.created', 'pix.created', 'pix.created']);
      // A URL with an unknown token is refused, and a bare array is read like {pix: […]}.
      const unknown = await fetch(`${api.baseUrl}/callbacks/pix/not-a-token/pix`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '[]',
      });
      expect(unknown.status).toBe(404);
      await callbackAndCheck(store, active.id, forge(active.pix.txid).pix);
      expect((await chargeRow(api, active.id)).status).toBe('pending');
    });

    it('cancels a live charge at the PSP (PATCH /cob), with canceled_at and pix.canceled; a second cancel is 400', async () => {
      const store = await live.liveStore();
      const charge = (await create(store)).body;
      const res = await api.as(store.key).post(`/payments/pix/${charge.id}/cancel`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: charge.id, status: 'canceled' });
      expect(Date.parse(res.body.canceled_at)).not.toBeNaN();
      expect(live.psp().cobs.get(charge.pix.txid)!.status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
      const patch = live
        .psp()
        .requests.find((r) => r.method === 'PATCH' && r.path === `/v2/cob/${charge.pix.txid}`);
      expect(patch!.body).toEqual({ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
      expect(await eventsFor(api, store.storeId, charge.id, 'pix.canceled')).toHaveLength(1);
      expect((await chargeRow(api, charge.id)).next_check_at).toBeNull();

      expectError(await api.as(store.key).post(`/payments/pix/${charge.id}/cancel`), 400, 'invalid_request');
      const listed = await api.as(store.key).get('/payments/pix?status=canceled');
      expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([charge.id]);
    });

    it('a cancel racing a payment: the PSP shows it paid, the payment is applied and the cancel is 400', async () => {
      const store = await live.liveStore();
      const charge = (await create(store)).body;
      live.psp().dropCallbacks = true;
      try {
        await live.psp().pay(charge.pix.txid);
      } finally {
        live.psp().dropCallbacks = false;
      }
      const res = await api.as(store.key).post(`/payments/pix/${charge.id}/cancel`);
      const error = expectError(res, 400, 'invalid_request');
      expect(error.message).toMatch(/already paid/);
      expect((await api.as(store.key).get(`/payments/pix/${charge.id}`)).body.status).toBe('paid');
      expect(await countRows(api, store.storeId)).toMatchObject({ sales: 1 });
      expect(await eventsFor(api, store.storeId, charge.id, 'pix.canceled')).toHaveLength(0);
      expect(await eventsFor(api, store.storeId, charge.id, 'pix.paid')).toHaveLength(1);
    });

    it('refunds through PUT /pix/{e2eid}/devolucao/{id}: pending, then DEVOLVIDO by callback → refunded', async () => {
      const store = await live.liveStore();
      const charge = (await create(store, { amount: 50 })).body;
      const e2eid = await live.psp().pay(charge.pix.txid);
      const sale = await eventually(async () => (await api.as(store.key).get('/sales')).body.data[0]);

      const res = await api.as(store.key).post(`/sales/${sale.id}/refund`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'approved',
        refunded_at: null,
        refund: { status: 'pending', failure_reason: null },
      });
      const refundId = sale.id.replace(/-/g, '');
      const put = live
        .psp()
        .requests.find((r) => r.method === 'PUT' && r.path === `/v2/pix/${e2eid}/devolucao/${refundId}`);
      expect(put!.body).toEqual({ valor: '50.00' });
      expectError(await api.as(store.key).post(`/sales/${sale.id}/refund`), 400, 'invalid_request');

      await live.psp().settleRefund(e2eid, refundId, 'DEVOLVIDO');
      const refunded = await eventually(async () => {
        const current = (await api.as(store.key).get(`/sales/${sale.id}`)).body;
        return current.status === 'refunded' ? current : undefined;
      });
      expect(refunded.refund).toMatchObject({ status: 'succeeded', failure_reason: null });
      expect(await eventsFor(api, store.storeId, sale.id, 'sale.refunded')).toHaveLength(1);
    });

    it('a refund the PSP could not make (NAO_REALIZADO) fails with sale.refund_failed; the sale stays approved', async () => {
      const store = await live.liveStore();
      const charge = (await create(store)).body;
      const e2eid = await live.psp().pay(charge.pix.txid);
      const sale = await eventually(async () => (await api.as(store.key).get('/sales')).body.data[0]);
      expect((await api.as(store.key).post(`/sales/${sale.id}/refund`)).body.refund.status).toBe('pending');

      await live
        .psp()
        .settleRefund(e2eid, sale.id.replace(/-/g, ''), 'NAO_REALIZADO', 'Conta do pagador encerrada');
      const failed = await eventually(async () => {
        const current = (await api.as(store.key).get(`/sales/${sale.id}`)).body;
        return current.refund?.status === 'failed' ? current : undefined;
      });
      expect(failed).toMatchObject({
        status: 'approved',
        refund: { failure_reason: 'Conta do pagador encerrada' },
      });
      expect(await eventsFor(api, store.storeId, sale.id, 'sale.refund_failed')).toHaveLength(1);
    });

    it('PSP failures answer 502 provider_error naming what the PSP said, and write nothing', async () => {
      const store = await live.liveStore();
      const before = await countRows(api, store.storeId);

      live.psp().failWith('500');
      const error500 = expectError(await create(store), 502, 'provider_error');
      expect(error500.message).toMatch(/500 ErroInternoDoServidor: "Erro interno do servidor\."/);

      live.psp().failWith('hang');
      const hung = expectError(await create(store), 502, 'provider_error');
      expect(hung.message).toMatch(/no answer within 1000 ms/);

      expect(await countRows(api, store.storeId)).toEqual(before);
    });

    it('a client certificate of another CA is refused at the handshake: 502, nothing written', async () => {
      const store = await live.liveStore({ clientCert: testPki().strangerClient });
      const error = expectError(await create(store), 502, 'provider_error');
      expect(error.message).toMatch(/could not be reached/);
      expect(await countRows(api, store.storeId)).toEqual({ charges: 0, sales: 0, events: 0 });
    });

    it('wrong client credentials: the token endpoint’s problem is named in the 502', async () => {
      const store = await live.liveStore();
      await api.db
        .updateTable('pix_providers')
        .set({ client_id: 'someone-else', updated_at: new Date().toISOString() })
        .where('store_id', '=', store.storeId)
        .execute();
      const error = expectError(await create(store), 502, 'provider_error');
      expect(error.message).toMatch(/refused our credentials.*401 AcessoNegado: "Não autorizado\."/);
      expect(await countRows(api, store.storeId)).toEqual({ charges: 0, sales: 0, events: 0 });
    });

    it('an expired token is renewed once and the call retried; a PKCS#12 identity works like PEM', async () => {
      const store = await live.liveStore({ identity: 'pfx' });
      expect((await create(store)).status).toBe(201);
      const issued = live.psp().tokensIssued;
      live.psp().expireTokens();
      expect((await create(store)).status).toBe(201);
      expect(live.psp().tokensIssued).toBe(issued + 1);

      // A second 401 with a fresh token is the PSP's refusal, not a stale token: 502, one renewal only.
      live.psp().refuseAllTokens = true;
      try {
        const before = live.psp().tokensIssued;
        const error = expectError(await create(store), 502, 'provider_error');
        expect(error.message).toMatch(/401 AcessoNegado/);
        expect(live.psp().tokensIssued).toBe(before + 1);
      } finally {
        live.psp().refuseAllTokens = false;
      }
    });

    it('a retry with the same Idempotency-Key after a PSP timeout makes one cob and one charge', async () => {
      const store = await live.liveStore();
      const headers = { 'idempotency-key': 'pedido-42-tentativa' };
      const cobsBefore = live.psp().cobs.size;
      live.psp().failWith('hang');
      expectError(await create(store, { external_id: 'pedido-42' }, headers), 502, 'provider_error');
      // The PSP did create the cob before going silent; nothing was written here.
      expect(live.psp().cobs.size).toBe(cobsBefore + 1);
      expect(await countRows(api, store.storeId)).toEqual({ charges: 0, sales: 0, events: 0 });

      const retried = await create(store, { external_id: 'pedido-42' }, headers);
      expect(retried.status).toBe(201);
      expect(live.psp().cobs.size).toBe(cobsBefore + 1);
      expect(live.psp().cobs.get(retried.body.pix.txid)!.revisao).toBe(1);
      expect(await countRows(api, store.storeId)).toMatchObject({ charges: 1 });
      const replay = await create(store, { external_id: 'pedido-42' }, headers);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.id).toBe(retried.body.id);
    });

    it('a PSP that refuses a txid it holds: the retry takes the cob the first request made, if it is the same charge', async () => {
      const store = await live.liveStore();
      const psp = live.psp();
      const headers = { 'idempotency-key': 'pedido-43-tentativa' };
      psp.refuseTxidReuse = true;
      try {
        psp.failWith('hang');
        expectError(await create(store, { amount: 19.9 }, headers), 502, 'provider_error');
        const retried = await create(store, { amount: 19.9 }, headers);
        expect(retried.status).toBe(201);
        const cob = psp.cobs.get(retried.body.pix.txid)!;
        expect(cob.revisao).toBe(0); // taken as it was, not revised
        expect(retried.body.pix.copy_paste).toBe(cob.pixCopiaECola);
        expect(await countRows(api, store.storeId)).toMatchObject({ charges: 1 });

        // The same txid holding another charge (its amount changed at the PSP) is never taken.
        const other = { 'idempotency-key': 'pedido-44-tentativa' };
        psp.failWith('hang');
        expectError(await create(store, { amount: 5 }, other), 502, 'provider_error');
        const [txid] = [...psp.cobs.keys()].slice(-1);
        psp.tamper(txid!, { valor: '9.99' });
        const refused = expectError(await create(store, { amount: 5 }, other), 502, 'provider_error');
        expect(refused.message).toMatch(/txid informado já foi utilizado/);
        expect(await countRows(api, store.storeId)).toMatchObject({ charges: 1 });
      } finally {
        psp.refuseTxidReuse = false;
      }
    });

    it('a live key of a store with no provider gets 400 provider_not_configured, for create, cancel and refund alike', async () => {
      const { storeId } = await api.createStore();
      const key = await api.createKey(storeId, undefined, 'live');
      const error = expectError(
        await api.as(key).post('/payments/pix', { amount: 10 }),
        400,
        'provider_not_configured',
        null,
      );
      expect(error.message).toMatch(/no live Pix provider configured.*pix-provider set/);
      expect(await countRows(api, storeId)).toEqual({ charges: 0, sales: 0, events: 0 });
      // Validation still comes first.
      expectError(await api.as(key).post('/payments/pix', { amount: 0 }), 400, 'invalid_request', 'amount');
    });
  },
  {
    config: {
      webhookAllowedHosts: allowedHosts,
      pspAllowedHosts: FAKE_PSP_ALLOWED_HOSTS,
      pspRequestTimeoutMs: 1000,
      pspConnectTimeoutMs: 1000,
      pixReconcileScheduleMs: [SCHEDULE_MS],
    },
  },
);
