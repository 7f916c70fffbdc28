import { expect, it } from 'vitest';
import { recurringChecks } from '../../src/flows/check-live-subscriptions.js';
import { eventually, silentLog } from '../webhooks/delivery-harness.js';
import { describeLivePix, startTestReconciler, useLivePix } from '../live-pix/live-harness.js';
import { recurringProduct, subscribe } from './subscription-helpers.js';
import { eventTypesOf } from '../support/store-records.js';

describeLivePix('Live Jornada 3: the payment makes the sale, only the approved rec activates', (api) => {
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

  async function liveSubscription() {
    const store = await live.liveStore();
    const product = await recurringProduct(api, store.key);
    const sub = (await subscribe(api, store.key, product.id)).body;
    expect(sub).toMatchObject({ status: 'pending', livemode: true });
    return { store, sub };
  }

  const salesOf = (key: string, subscriptionId: string) =>
    api
      .as(key)
      .get('/sales')
      .then((res) => res.body.data.filter((sale: any) => sale.subscription_id === subscriptionId));

  it('a payer who pays but refuses the recurrence: the sale is made, the subscription never becomes active', async () => {
    const { store, sub } = await liveSubscription();
    const psp = live.psp();
    await withRecurringReconciler(async () => {
      await psp.rec.payRefusingJourney3(sub.pix.id_rec);
      const sales = await eventually(async () => {
        const found = await salesOf(store.key, sub.id);
        return found.length === 1 ? found : undefined;
      });
      expect(sales[0]).toMatchObject({ status: 'approved', cycle: 1, amount: 49.9 });
      const ended = await eventually(async () => {
        const current = (await api.as(store.key).get(`/subscriptions/${sub.id}`)).body;
        return current.status !== 'pending' ? current : undefined;
      });
      // It was read back from the PSP, and the refusal is what decides.
      expect(psp.requests.some((r) => r.method === 'GET' && r.path === `/v2/rec/${sub.pix.id_rec}`)).toBe(
        true,
      );
      expect(ended).toMatchObject({ status: 'canceled', cancel_reason: 'buyer' });
    });
    const events = await eventTypesOf(api, store.storeId, sub.id);
    expect(events).not.toContain('subscription.activated');
    expect(events).toEqual(['subscription.created', 'subscription.canceled']);
  });

  it('a payer who pays and approves: active once GET /rec shows it APROVADA, from the payment’s day', async () => {
    const { store, sub } = await liveSubscription();
    const psp = live.psp();
    await withRecurringReconciler(async () => {
      await psp.rec.payJourney3(sub.pix.id_rec);
      await eventually(async () => {
        const current = (await api.as(store.key).get(`/subscriptions/${sub.id}`)).body;
        return current.status === 'active' ? current : undefined;
      });
      expect(psp.requests.some((r) => r.method === 'GET' && r.path === `/v2/rec/${sub.pix.id_rec}`)).toBe(
        true,
      );
      expect(await salesOf(store.key, sub.id)).toHaveLength(1);
    });
    expect(await eventTypesOf(api, store.storeId, sub.id)).toEqual([
      'subscription.created',
      'subscription.activated',
    ]);
  });
});
