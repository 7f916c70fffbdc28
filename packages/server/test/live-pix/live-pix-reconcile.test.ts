import { expect, it } from 'vitest';
import { eventsFor } from '../pix/pix-test-helpers.js';
import { describeEachDatabase } from '../support/test-api.js';
import { eventually } from '../webhooks/delivery-harness.js';
import { FAKE_PSP_ALLOWED_HOSTS, startTestReconciler, useLivePix } from './live-harness.js';

/**
 * Lost callbacks: the reconciler asks the PSP on the charge's schedule (shortened here to 150 ms,
 * then every 300 ms), so a payment or a refund whose callback never came is still applied, once,
 * even with two reconcilers claiming the same work.
 */
describeEachDatabase(
  'Live Pix reconciliation when callbacks are lost',
  (api) => {
    const live = useLivePix(api);

    it('a dropped payment callback: the poller confirms it at the PSP and the charge is paid once, by one of two reconcilers', async () => {
      const second = startTestReconciler(api, { pollIntervalMs: 20 });
      try {
        const store = await live.liveStore();
        const charge = (await api.as(store.key).post('/payments/pix', { amount: 7.5 })).body;
        live.psp().dropCallbacks = true;
        const callbacksBefore = live.psp().callbacks.length;
        await live.psp().pay(charge.pix.txid);
        expect(live.psp().callbacks.length).toBe(callbacksBefore);

        const paid = await eventually(async () => {
          const current = (await api.as(store.key).get(`/payments/pix/${charge.id}`)).body;
          return current.status === 'paid' ? current : undefined;
        });
        expect(Date.parse(paid.paid_at)).not.toBeNaN();
        expect(await eventsFor(api, store.storeId, charge.id, 'pix.paid')).toHaveLength(1);
        expect((await api.as(store.key).get('/sales')).body.data).toHaveLength(1);
        const row = await api.db
          .selectFrom('pix_charges')
          .selectAll()
          .where('id', '=', charge.id)
          .executeTakeFirstOrThrow();
        expect(row.next_check_at).toBeNull();
      } finally {
        live.psp().dropCallbacks = false;
        await second.stop();
      }
    });

    it('a refund settled without a callback: GET /pix/{e2eid}/devolucao/{id} on the schedule finds NAO_REALIZADO, then a new attempt succeeds', async () => {
      const store = await live.liveStore();
      const charge = (await api.as(store.key).post('/payments/pix', { amount: 20 })).body;
      const e2eid = await live.psp().pay(charge.pix.txid);
      const sale = await eventually(async () => (await api.as(store.key).get('/sales')).body.data[0]);
      live.psp().dropCallbacks = true;
      try {
        expect((await api.as(store.key).post(`/sales/${sale.id}/refund`)).body.refund.status).toBe('pending');
        const firstId = sale.id.replace(/-/g, '');
        await live.psp().settleRefund(e2eid, firstId, 'NAO_REALIZADO', 'Saldo insuficiente');
        const failed = await eventually(async () => {
          const current = (await api.as(store.key).get(`/sales/${sale.id}`)).body;
          return current.refund?.status === 'failed' ? current : undefined;
        });
        expect(failed.refund.failure_reason).toBe('Saldo insuficiente');
        expect(
          live
            .psp()
            .requests.some((r) => r.method === 'GET' && r.path === `/v2/pix/${e2eid}/devolucao/${firstId}`),
        ).toBe(true);

        // A failed refund may be asked again: a new devolucao id, settled this time.
        const again = await api.as(store.key).post(`/sales/${sale.id}/refund`);
        expect(again.body.refund.status).toBe('pending');
        await live.psp().settleRefund(e2eid, `${firstId}r2`, 'DEVOLVIDO');
        const refunded = await eventually(async () => {
          const current = (await api.as(store.key).get(`/sales/${sale.id}`)).body;
          return current.status === 'refunded' ? current : undefined;
        });
        expect(refunded.refund.status).toBe('succeeded');
        expect(await eventsFor(api, store.storeId, sale.id, 'sale.refund_failed')).toHaveLength(1);
        expect(await eventsFor(api, store.storeId, sale.id, 'sale.refunded')).toHaveLength(1);
      } finally {
        live.psp().dropCallbacks = false;
      }
    });
  },
  {
    config: {
      pspRequestTimeoutMs: 2000,
      pixReconcileScheduleMs: [150, 300],
      pspAllowedHosts: FAKE_PSP_ALLOWED_HOSTS,
    },
  },
);
