import { expect, it } from 'vitest';
import { parseCompositeBrCode } from '../../src/pix/brcode/index.js';
import { addDays } from '../../src/common/local-date.js';
import { runCycles } from '../../src/subscriptions/cycle-scheduler.js';
import { recurringChecks } from '../../src/subscriptions/live-checks.js';
import { decodeQr } from '../pix/pix-test-helpers.js';
import { updateStore } from '../../src/stores/stores.js';
import { BUYER as PAGE_BUYER, pageRequest } from '../pages/page-support.js';
import { describeEachDatabase } from '../support/test-api.js';
import { eventually, silentLog } from '../webhooks/delivery-harness.js';
import { startTestReconciler, useLivePix } from '../live-pix/live-harness.js';
import { BUYER, recurringProduct, subscribe } from '../subscriptions/subscription-helpers.js';
import { eventTypesOf } from '../support/store-records.js';

describeEachDatabase('Live subscriptions end to end (fake PSP over mTLS)', (api) => {
  const live = useLivePix(api);

  async function withRecurringReconciler<T>(work: () => Promise<T>): Promise<T> {
    const reconciler = startTestReconciler(api, {
      pollIntervalMs: 30,
      checks: recurringChecks(api.db, api.config, silentLog),
    });
    try {
      return await work();
    } finally {
      await reconciler.stop();
    }
  }

  it('POST /subscriptions with a live key: Jornada 3 at the PSP, paid and approved, a cycle renewed, then the buyer revokes at their bank', async () => {
    const store = await live.liveStore();
    const psp = live.psp();
    const product = await recurringProduct(api, store.key, {
      nome: 'Clube do Café Especial — assinatura mensal',
    });
    const from = psp.requests.length;
    const res = await subscribe(api, store.key, product.id);
    expect(res.status).toBe(201);
    const sub = res.body;
    const calls = psp.requests.slice(from).filter((r) => r.path.startsWith('/v2/'));
    expect(
      calls.map((r) => `${r.method} ${r.path.split('?')[0]!.replace(/\/[A-Za-z0-9]{26,35}$/, '/:id')}`),
    ).toEqual(['POST /v2/locrec', 'PUT /v2/cob/:id', 'POST /v2/rec', 'GET /v2/rec/:id']);
    expect(calls[2]!.body).toMatchObject({
      vinculo: {
        contrato: sub.id,
        objeto: 'Clube do Café Especial — assinatura',
        devedor: { cpf: BUYER.document, nome: BUYER.name },
      },
      calendario: { periodicidade: 'MENSAL' },
      valor: { valorRec: '49.90' },
      politicaRetentativa: 'PERMITE_3R_7D',
    });
    expect(sub).toMatchObject({ status: 'pending', livemode: true, pix: { journey: 'JORNADA_3' } });
    const rec = psp.rec.recs.get(sub.pix.id_rec)!;
    expect(parseCompositeBrCode(sub.first_charge.pix.copy_paste).recurrenceUrl).toBe(rec.loc.location);
    expect(decodeQr(sub.first_charge.pix.qr_code_base64)).toBe(sub.first_charge.pix.copy_paste);

    await withRecurringReconciler(async () => {
      await psp.rec.payJourney3(sub.pix.id_rec);
      const active = await eventually(async () => {
        const current = (await api.as(store.key).get(`/subscriptions/${sub.id}`)).body;
        return current.status === 'active' ? current : undefined;
      });
      // The worker sends the next cycle's cobr 5 days before the period's end. On PostgreSQL a run
      // skips a subscription the reconciler holds locked at that instant (SKIP LOCKED): the next run
      // takes it, as the worker's next minute would.
      const runOn = (asOf: string) => runCycles(api.db, { asOf, storeId: store.storeId });
      await eventually(
        async () => (await runOn(addDays(active.current_period_end, -5))).charges_sent.length === 1,
      );
      const cobr = [...psp.rec.cobrs.values()].find((c) => c.idRec === sub.pix.id_rec)!;
      expect(cobr.calendario.dataDeVencimento).toBe(active.current_period_end);

      // The payer's bank fails the first attempt: past_due; the retry is asked, then it settles.
      await psp.rec.failCobr(cobr.txid);
      await eventually(
        async () => (await api.as(store.key).get(`/subscriptions/${sub.id}`)).body.status === 'past_due',
      );
      await eventually(
        async () => (await runOn(addDays(active.current_period_end, 1))).retries_requested.length === 1,
      );
      await psp.rec.settleCobr(cobr.txid);
      const renewed = await eventually(async () => {
        const current = (await api.as(store.key).get(`/subscriptions/${sub.id}`)).body;
        return current.status === 'active' && current.current_period_start === active.current_period_end
          ? current
          : undefined;
      });
      expect(renewed.current_period_start).toBe(active.current_period_end);

      // A forged /rec callback changes nothing; the buyer really revoking it does.
      const url = psp.rec.webhookRec!;
      await fetch(`${url}/rec`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ recs: [{ idRec: sub.pix.id_rec, status: 'CANCELADA', atualizacao: [] }] }),
      });
      await eventually(async () =>
        psp.requests.some((r) => r.method === 'GET' && r.path === `/v2/rec/${sub.pix.id_rec}`),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await api.as(store.key).get(`/subscriptions/${sub.id}`)).body.status).toBe('active');
      await psp.rec.endRec(sub.pix.id_rec, 'USUARIO_PAGADOR');
      const canceled = await eventually(async () => {
        const current = (await api.as(store.key).get(`/subscriptions/${sub.id}`)).body;
        return current.status === 'canceled' ? current : undefined;
      });
      expect(canceled.cancel_reason).toBe('buyer');
    });
    expect(await eventTypesOf(api, store.storeId, sub.id)).toEqual([
      'subscription.created',
      'subscription.activated',
      'subscription.past_due',
      'subscription.renewed',
      'subscription.canceled',
    ]);
  });
});

describeEachDatabase('Live subscription creation retried after a PSP failure', (api) => {
  const live = useLivePix(api);
  /** `GET /rec/RR…?txid=…` → `GET /rec/:id`, as the fake PSP names routes for `failCall`. */
  const routesOf = (calls: { method: string; path: string }[]) =>
    calls.map(
      (r) =>
        `${r.method} /${r.path
          .split('?')[0]!
          .split('/')
          .filter(Boolean)
          .map((segment, i) => (i % 2 === 0 ? segment : ':id'))
          .join('/')}`,
    );

  async function retriedCreation(failure: { route: string; after: boolean }) {
    const store = await live.liveStore();
    const psp = live.psp();
    const product = await recurringProduct(api, store.key);
    const key = { 'Idempotency-Key': `sub-${failure.route}-${failure.after}` };
    const recsBefore = psp.rec.recs.size;
    psp.failCall(failure.route, 1, { after: failure.after });
    const failed = await subscribe(api, store.key, product.id, key);
    expect(failed.status).toBe(502);
    expect(
      await api.db.selectFrom('subscriptions').select('id').where('store_id', '=', store.storeId).execute(),
    ).toEqual([]);
    const from = psp.requests.length;
    const retried = await subscribe(api, store.key, product.id, key);
    expect(retried.status).toBe(201);
    const sub = retried.body;
    // Exactly one authorisation at the PSP, the subscription's, and one subscription here.
    const recs = [...psp.rec.recs.values()].filter((rec) => rec.vinculo.contrato === sub.id);
    expect(recs.map((rec) => rec.idRec)).toEqual([sub.pix.id_rec]);
    expect(psp.rec.recs.size).toBe(recsBefore + 1);
    const stored = await api.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('store_id', '=', store.storeId)
      .execute();
    expect(stored.map((row) => [row.id, row.id_rec])).toEqual([[sub.id, sub.pix.id_rec]]);
    expect(
      await api.db
        .selectFrom('subscription_creations')
        .select(['subscription_id', 'id_rec'])
        .where('store_id', '=', store.storeId)
        .where('completed_at', 'is not', null)
        .execute(),
    ).toEqual([{ subscription_id: sub.id, id_rec: sub.pix.id_rec }]);
    // The code the buyer scans pays this cob and authorises this rec.
    expect(parseCompositeBrCode(sub.first_charge.pix.copy_paste).recurrenceUrl).toBe(recs[0]!.loc.location);
    const calls = psp.requests.slice(from).filter((r) => r.path.startsWith('/v2/'));
    return { sub, store, psp, retryCalls: routesOf(calls.map((r) => ({ ...r, path: r.path.slice(3) }))) };
  }

  it('the PSP made the rec but its answer was lost: the retry finds it through GET /locrec/{id} and makes no second one', async () => {
    const { retryCalls } = await retriedCreation({ route: 'POST /rec', after: true });
    expect(retryCalls).toEqual(['PUT /cob/:id', 'GET /locrec/:id', 'GET /rec/:id']);
  });

  it('a 5xx on the call after POST /rec: the retry reuses the saved rec and location', async () => {
    const { retryCalls } = await retriedCreation({ route: 'GET /rec/:id', after: false });
    expect(retryCalls).toEqual(['PUT /cob/:id', 'GET /rec/:id']);
  });

  it('the purchase page: the buyer sending the same order again after the page’s 503 gets the rec the PSP made, not a second', async () => {
    const store = await live.liveStore();
    const psp = live.psp();
    const { handle } = (await updateStore(api.db, store.storeId, { checkoutMode: 'live' }))!;
    const product = await recurringProduct(api, store.key);
    const order = () =>
      pageRequest(api, 'POST', `/p/${handle}/${product.slug}/orders`, { ...PAGE_BUYER, bump: false });
    const recsBefore = psp.rec.recs.size;
    psp.failCall('POST /rec', 1, { after: true });
    const failed = await order();
    expect(failed.status).toBe(503);
    const placed = await order();
    expect(placed.status).toBe(201);
    const [sub, ...others] = (await api.as(store.key).get('/subscriptions')).body.data;
    expect(others).toEqual([]);
    expect(psp.rec.recs.size).toBe(recsBefore + 1);
    expect(psp.rec.recs.get(sub.pix.id_rec)!.vinculo.contrato).toBe(sub.id);
    expect((await api.as(store.key).get('/orders')).body.data.map((o: any) => o.status)).toEqual(['pending']);
  });

  it('POST /rec refused before the PSP made anything: the retry makes the one rec on the saved location', async () => {
    const { retryCalls } = await retriedCreation({ route: 'POST /rec', after: false });
    expect(retryCalls).toEqual(['PUT /cob/:id', 'GET /locrec/:id', 'POST /rec', 'GET /rec/:id']);
  });
});
