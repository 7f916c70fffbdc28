import { beforeAll, expect, it } from 'vitest';
import { addDays, localDate } from '../../src/platform/values/local-date.js';
import { startCycleScheduler } from '../../src/flows/run-cycles.js';
import { runCli } from '../support/cli.js';
import { eventually, silentLog } from '../webhooks/delivery-harness.js';
import { TEST_SECRET, describeEachDatabase } from '../support/test-api.js';
import { recurringProduct, subscribe } from './subscription-helpers.js';
import { eventTypesOf } from '../support/store-records.js';

describeEachDatabase('storefront subscriptions run-cycles: each cycle billed once, retries, ends', (api) => {
  let key: string;
  let storeId: string;
  let product: any;
  let env: Record<string, string>;
  const runCycles = async (...args: string[]) => {
    const result = await runCli(env, 'subscriptions', 'run-cycles', ...args);
    if (result.code !== 0) throw new Error(`run-cycles failed: ${result.stderr}`);
    return result;
  };
  const runJson = async (...args: string[]) => JSON.parse((await runCycles(...args, '--json')).stdout);

  /** An active subscription (its first charge paid), as the API shows it. */
  async function activeSubscription(productId = product.id): Promise<any> {
    const sub = (await subscribe(api, key, productId)).body;
    await api.as(key).post(`/payments/pix/${sub.first_charge.id}/simulate_payment`);
    return (await api.as(key).get(`/subscriptions/${sub.id}`)).body;
  }
  const cyclesOf = (id: string) =>
    api.db.selectFrom('subscription_cycles').selectAll().where('subscription_id', '=', id).execute();

  beforeAll(async () => {
    ({ key, storeId } = await api.createStore());
    product = await recurringProduct(api, key);
    env = { DATABASE_URL: api.database.url, STOREFRONT_SECRET: TEST_SECRET, ...api.database.env };
  });

  it('sends the next cycle’s charge 5 days before its due date, once, and prints what it did', async () => {
    const sub = await activeSubscription();
    const due = sub.next_charge_date;
    const early = await runJson('--store', storeId, '--as-of', addDays(due, -6));
    expect(early.charges_sent.filter((c: any) => c.subscription_id === sub.id)).toEqual([]);
    expect(await cyclesOf(sub.id)).toEqual([]);

    const onTime = await runJson('--store', storeId, '--as-of', addDays(due, -5));
    expect(onTime).toMatchObject({ as_of: addDays(due, -5), store_id: storeId });
    expect(onTime.charges_sent).toContainEqual({ subscription_id: sub.id, cycle: 2, due_date: due });
    expect(await cyclesOf(sub.id)).toMatchObject([
      { cycle: 2, status: 'scheduled', due_date: due, amount_cents: 4990, failed_attempts: 0 },
    ]);
    // Run again, even days later: the cycle has its charge, nothing more is sent.
    const again = await runJson('--store', storeId, '--as-of', due);
    expect(again.charges_sent.filter((c: any) => c.subscription_id === sub.id)).toEqual([]);
    expect(await cyclesOf(sub.id)).toHaveLength(1);

    // The human form says the same.
    const next = await activeSubscription();
    const text = (await runCycles('--store', storeId, '--as-of', addDays(next.next_charge_date, -5))).stdout;
    expect(text).toContain(`charge sent: ${next.id} cycle 2, due ${next.next_charge_date}`);

    // Paying the cycle moves the next one a period on; that one is sent in its own window.
    const renewed = (await api.as(key).post(`/subscriptions/${sub.id}/simulate_renewal`)).body;
    expect(renewed).toMatchObject({ cycle: 2, current_period_start: due });
    const third = await runJson('--store', storeId, '--as-of', addDays(renewed.next_charge_date, -5));
    expect(third.charges_sent).toContainEqual({
      subscription_id: sub.id,
      cycle: 3,
      due_date: renewed.next_charge_date,
    });
  });

  it('two schedulers at once bill every due cycle exactly once between them', async () => {
    const { key: ownKey, storeId: ownStore } = await api.createStore({ name: 'Loja concorrente' });
    const own = await recurringProduct(api, ownKey);
    const subs: any[] = [];
    for (let i = 0; i < 24; i++) {
      const sub = (await subscribe(api, ownKey, own.id)).body;
      await api.as(ownKey).post(`/payments/pix/${sub.first_charge.id}/simulate_payment`);
      subs.push(sub);
    }
    const asOf = (await api.as(ownKey).get(`/subscriptions/${subs[0].id}`)).body.next_charge_date;
    const [a, b] = await Promise.all([
      runJson('--store', ownStore, '--as-of', asOf),
      runJson('--store', ownStore, '--as-of', asOf),
    ]);
    const sent = [...a.charges_sent, ...b.charges_sent].map((c: any) => c.subscription_id);
    expect(sent.sort()).toEqual(subs.map((s) => s.id).sort());
    const cycles = await api.db
      .selectFrom('subscription_cycles')
      .select(['subscription_id', 'cycle', 'status'])
      .where('store_id', '=', ownStore)
      .execute();
    expect(cycles).toHaveLength(24);
    expect(cycles.every((c) => c.cycle === 2 && c.status === 'scheduled')).toBe(true);
  });

  it('asks for a retry on the day after a failure, once, and cancels when the 7 days pass without payment', async () => {
    const sub = await activeSubscription();
    const due = sub.next_charge_date;
    await runJson('--store', storeId, '--as-of', addDays(due, -5));
    const pastDue = (await api.as(key).post(`/subscriptions/${sub.id}/simulate_failure`)).body;
    expect(pastDue.status).toBe('past_due');
    const today = localDate(new Date(), 'America/Sao_Paulo');
    const retryDay = addDays(today, 1);
    const retried = await runJson('--store', storeId, '--as-of', retryDay);
    expect(retried.retries_requested).toContainEqual({ subscription_id: sub.id, cycle: 2, date: retryDay });
    const again = await runJson('--store', storeId, '--as-of', retryDay);
    expect(again.retries_requested.filter((r: any) => r.subscription_id === sub.id)).toEqual([]);
    expect(await cyclesOf(sub.id)).toMatchObject([{ failed_attempts: 1, retries_requested: 1 }]);

    const ended = await runJson('--store', storeId, '--as-of', addDays(due, 8));
    expect(ended.canceled).toContainEqual({ subscription_id: sub.id, reason: 'payment_failed' });
    expect((await api.as(key).get(`/subscriptions/${sub.id}`)).body).toMatchObject({
      status: 'canceled',
      cancel_reason: 'payment_failed',
    });
    expect((await eventTypesOf(api, storeId, sub.id)).slice(-2)).toEqual([
      'subscription.past_due',
      'subscription.canceled',
    ]);
  });

  it('the retry window ends 7 days after the due date: a retry on day 7 is asked for, on day 8 it is too late', async () => {
    const onTime = await activeSubscription();
    const late = await activeSubscription();
    const due = onTime.next_charge_date;
    expect(late.next_charge_date).toBe(due);
    await runJson('--store', storeId, '--as-of', addDays(due, -5));
    for (const sub of [onTime, late]) {
      expect((await api.as(key).post(`/subscriptions/${sub.id}/simulate_failure`)).body.status).toBe(
        'past_due',
      );
    }
    // The other is not looked at again until the day after the window, as after a scheduler outage.
    await api.db
      .updateTable('subscriptions')
      .set({ next_action_date: addDays(due, 8) })
      .where('id', '=', late.id)
      .execute();
    const lastDay = await runJson('--store', storeId, '--as-of', addDays(due, 7));
    expect(lastDay.retries_requested).toContainEqual({
      subscription_id: onTime.id,
      cycle: 2,
      date: addDays(due, 7),
    });
    expect(lastDay.canceled.filter((c: any) => c.subscription_id === late.id)).toEqual([]);

    const dayAfter = await runJson('--store', storeId, '--as-of', addDays(due, 8));
    expect(dayAfter.retries_requested.filter((r: any) => r.subscription_id === late.id)).toEqual([]);
    expect(dayAfter.canceled).toContainEqual({ subscription_id: late.id, reason: 'payment_failed' });
    expect(await cyclesOf(late.id)).toMatchObject([
      { status: 'failed', failed_attempts: 1, retries_requested: 0 },
    ]);
  });

  it('the worker’s scheduler sends a cycle due today by itself, once, however many of them run', async () => {
    const sub = await activeSubscription();
    // As if the month had passed: the next cycle's charge is due today in the store's timezone.
    await api.db
      .updateTable('subscriptions')
      .set({ next_action_date: localDate(new Date(), 'America/Sao_Paulo') })
      .where('id', '=', sub.id)
      .execute();
    const schedulers = [1, 2].map(() =>
      startCycleScheduler({ db: api.db, payments: api.payments, log: silentLog, intervalMs: 50 }),
    );
    try {
      const [cycle] = await eventually(async () => {
        const rows = await cyclesOf(sub.id);
        return rows.length > 0 && rows[0]!.status === 'scheduled' && rows;
      });
      expect(cycle).toMatchObject({ cycle: 2, due_date: sub.next_charge_date });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await cyclesOf(sub.id)).toHaveLength(1);
      const row = await api.db
        .selectFrom('subscriptions')
        .selectAll()
        .where('id', '=', sub.id)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ next_action_date: null, claimed_until: null });
    } finally {
      await Promise.all(schedulers.map((scheduler) => scheduler.stop()));
    }
  });

  it('expires pending subscriptions whose first charge expired, by the --as-of day too, touches only --store, and refuses a bad --as-of', async () => {
    const pending = (await subscribe(api, key, product.id)).body;
    await api.as(key).post(`/payments/pix/${pending.first_charge.id}/simulate_expiration`);
    // Still payable by the real clock, but expired by the end of the day played.
    const unpaid = (await subscribe(api, key, product.id)).body;
    const other = await api.createStore({ name: 'Outra loja' });
    const otherProduct = await recurringProduct(api, other.key);
    const otherSub = (await subscribe(api, other.key, otherProduct.id)).body;
    await api.as(other.key).post(`/payments/pix/${otherSub.first_charge.id}/simulate_payment`);
    const otherDue = (await api.as(other.key).get(`/subscriptions/${otherSub.id}`)).body.next_charge_date;

    const report = await runJson('--store', storeId, '--as-of', otherDue);
    expect(report.expired).toContain(pending.id);
    expect((await api.as(key).get(`/subscriptions/${pending.id}`)).body.status).toBe('expired');
    expect(report.expired).toContain(unpaid.id);
    expect((await api.as(key).get(`/subscriptions/${unpaid.id}`)).body.status).toBe('expired');
    expect((await api.as(other.key).get(`/subscriptions/${otherSub.id}`)).body.status).toBe('active');
    expect(await cyclesOf(otherSub.id)).toEqual([]);

    for (const bad of ['2026-02-30', '2026-1-5', 'tomorrow']) {
      const result = await runCli(env, 'subscriptions', 'run-cycles', '--as-of', bad);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('--as-of must be a calendar day written YYYY-MM-DD');
    }
  });
});
