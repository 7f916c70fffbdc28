import { expect, it } from 'vitest';
import { parseCompositeBrCode } from '../../src/platform/brcode/index.js';
import { addDays } from '../../src/platform/values/local-date.js';
import { runCycles } from '../../src/flows/run-cycles.js';
import { recurringChecks } from '../../src/flows/check-live-subscriptions.js';
import { decodeQr } from '../pix/pix-test-helpers.js';
import { updateStore } from '../../src/domain/stores/stores.js';
import { BUYER as PAGE_BUYER, pageRequest } from '../pages/page-support.js';
import {
  accountColumns,
  checkReceivingAccount,
} from '../../src/domain/payments/api-pix/receiving-account.js';
import type { ReceivingAccountInput } from '../../src/domain/payments/api-pix/receiving-account.js';
import { RECEBEDOR_CONTA } from '../support/fake-psp-rec.js';
import { expectError } from '../support/test-api.js';
import { eventually, silentLog } from '../webhooks/delivery-harness.js';
import { PSP_ACCOUNT, describeLivePix, startTestReconciler, useLivePix } from '../live-pix/live-harness.js';
import { BUYER, recurringProduct, subscribe } from '../subscriptions/subscription-helpers.js';
import { eventTypesOf } from '../support/store-records.js';

describeLivePix('Live subscriptions end to end (fake PSP over mTLS)', (api) => {
  const live = useLivePix(api);

  async function withRecurringReconciler<T>(work: () => Promise<T>): Promise<T> {
    const reconciler = startTestReconciler(api, {
      pollIntervalMs: 30,
      checks: recurringChecks(api.db, api.payments, api.config, silentLog),
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
      const runOn = (asOf: string) => runCycles(api.db, api.payments, { asOf, storeId: store.storeId });
      await eventually(
        async () => (await runOn(addDays(active.current_period_end, -5))).charges_sent.length === 1,
      );
      const cobr = [...psp.rec.cobrs.values()].find((c) => c.idRec === sub.pix.id_rec)!;
      expect(cobr.calendario.dataDeVencimento).toBe(active.current_period_end);
      // The cycle is paid into the store's receiving account, as its PSP settings hold it.
      const put = psp.requests.find((r) => r.method === 'PUT' && r.path === `/v2/cobr/${cobr.txid}`)!;
      expect((put.body as { recebedor: unknown }).recebedor).toEqual(RECEBEDOR_CONTA);

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

describeLivePix('Live subscriptions and the store’s receiving account', (api) => {
  const live = useLivePix(api);

  /** Changes the stored account only, as older data or a bad entry would leave it. */
  async function setAccount(storeId: string, account: ReceivingAccountInput) {
    await api.db
      .updateTable('pix_providers')
      .set({ ...accountColumns(checkReceivingAccount(account)), updated_at: new Date().toISOString() })
      .where('store_id', '=', storeId)
      .execute();
  }

  const rowsOf = (table: 'subscriptions' | 'pix_charges' | 'subscription_creations', storeId: string) =>
    api.db.selectFrom(table).select('store_id').where('store_id', '=', storeId).execute();

  it('without a receiving account, creation answers 400 provider_not_configured naming the setting; nothing is written or sent (API and purchase page)', async () => {
    const store = await live.liveStore({ account: {} });
    const psp = live.psp();
    const product = await recurringProduct(api, store.key);
    const from = psp.requests.length;
    const res = await subscribe(api, store.key, product.id);
    expectError(res, 400, 'provider_not_configured');
    expect(res.body.error.message).toMatch(
      /no receiving account.*storefront pix-provider set --store <store_id> … --account <conta> --account-type/,
    );

    const { handle } = (await updateStore(api.db, store.storeId, { checkoutMode: 'live' }))!;
    const page = await pageRequest(api, 'POST', `/p/${handle}/${product.slug}/orders`, {
      ...PAGE_BUYER,
      bump: false,
    });
    expect(page.status).toBe(503);

    expect(psp.requests.slice(from)).toEqual([]);
    for (const table of ['subscriptions', 'pix_charges', 'subscription_creations'] as const)
      expect(await rowsOf(table, store.storeId), table).toEqual([]);
    expect((await api.as(store.key).get('/orders')).body.data).toEqual([]);
  });

  it('a cycle without the account fails here without calling the PSP; with another account the PSP refuses it; both are failed cycles until the right one is set', async () => {
    const store = await live.liveStore();
    const psp = live.psp();
    const product = await recurringProduct(api, store.key);
    const sub = (await subscribe(api, store.key, product.id)).body;
    const reconciler = startTestReconciler(api, {
      pollIntervalMs: 30,
      checks: recurringChecks(api.db, api.payments, api.config, silentLog),
    });
    try {
      await psp.rec.payJourney3(sub.pix.id_rec);
      const active = await eventually(async () => {
        const current = (await api.as(store.key).get(`/subscriptions/${sub.id}`)).body;
        return current.status === 'active' ? current : undefined;
      });
      // A 1 ms lease: a failed run's claim is over by the next run.
      const run = () =>
        runCycles(api.db, api.payments, {
          asOf: addDays(active.current_period_end, -5),
          storeId: store.storeId,
          leaseMs: 1,
        });
      const failedRun = () =>
        eventually(async () => {
          const report = await run();
          return report.failed.length === 1 ? report.failed[0]! : undefined;
        });
      const cobrCalls = (from: number) =>
        psp.requests.slice(from).filter((r) => r.path.startsWith('/v2/cobr'));

      await setAccount(store.storeId, {});
      let from = psp.requests.length;
      expect(await failedRun()).toEqual({
        subscription_id: sub.id,
        error: expect.stringMatching(/no receiving account.*--account <conta> --account-type/),
      });
      expect(cobrCalls(from)).toEqual([]);
      expect(
        await api.db
          .selectFrom('subscription_cycles')
          .select('id')
          .where('subscription_id', '=', sub.id)
          .execute(),
      ).toEqual([]);

      await setAccount(store.storeId, { ...PSP_ACCOUNT, account: '99999-9' });
      from = psp.requests.length;
      expect((await failedRun()).error).toMatch(
        /400 CobROperacaoInvalida.*Os campos cobr\.recebedor\.conta e cobr\.recebedor\.agencia correspondem a uma conta que não pertence a este usuário recebedor/,
      );
      const puts = cobrCalls(from).filter((r) => r.method === 'PUT');
      expect(puts.map((r) => (r.body as { recebedor: unknown }).recebedor)).toContainEqual({
        conta: '99999-9',
        agencia: RECEBEDOR_CONTA.agencia,
        tipoConta: 'CORRENTE',
      });
      expect([...psp.rec.cobrs.values()].filter((c) => c.idRec === sub.pix.id_rec)).toEqual([]);

      await setAccount(store.storeId, PSP_ACCOUNT);
      await eventually(async () => (await run()).charges_sent.length === 1);
      expect([...psp.rec.cobrs.values()].filter((c) => c.idRec === sub.pix.id_rec)).toHaveLength(1);
    } finally {
      await reconciler.stop();
    }
  });
});

describeLivePix('Live subscription creation retried after a PSP failure', (api) => {
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
