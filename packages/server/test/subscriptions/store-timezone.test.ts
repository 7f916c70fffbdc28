import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { runCycles } from '../../src/flows/run-cycles.js';
import { runCli } from '../support/cli.js';
import { TEST_SECRET, describeEachDatabase } from '../support/test-api.js';
import { recurringProduct, subscribe } from './subscription-helpers.js';

/*
 * A store's days are its own: at 03:30 UTC it is already tomorrow in São Paulo (UTC−3) but still
 * today in Manaus (UTC−4). Subscriptions are activated, and their cycles fall due, on the store's
 * day, whatever the server's zone.
 */
describeEachDatabase('Subscription days in the store’s time zone (Manaus, São Paulo, UTC)', (api) => {
  const ZONES = ['America/Manaus', 'America/Sao_Paulo', 'UTC'] as const;
  type Zone = (typeof ZONES)[number];
  const stores = {} as Record<Zone, { key: string; storeId: string; subscriptionId: string }>;
  let env: Record<string, string>;

  const at = (instant: string) => vi.setSystemTime(new Date(instant));
  const subscriptionOf = async (zone: Zone) =>
    (await api.as(stores[zone].key).get(`/subscriptions/${stores[zone].subscriptionId}`)).body;
  /** Which of the three stores had a cycle charge sent by a run of the scheduler now. */
  async function sentNow(): Promise<Zone[]> {
    const sent: Zone[] = [];
    for (const zone of ZONES) {
      const report = await runCycles(api.db, api.payments, { storeId: stores[zone].storeId });
      expect(report.as_of).toBeNull();
      if (report.charges_sent.length > 0) sent.push(zone);
    }
    return sent;
  }

  afterEach(() => {
    vi.useRealTimers();
  });

  beforeAll(async () => {
    env = { DATABASE_URL: api.database.url, STOREFRONT_SECRET: TEST_SECRET, ...api.database.env };
    for (const zone of ZONES) {
      const { key, storeId } = await api.createStore({ name: `Loja ${zone}` });
      expect((await api.as(key).patch('/store', { timezone: zone })).body.timezone).toBe(zone);
      stores[zone] = { key, storeId, subscriptionId: '' };
    }
  });

  it('a first charge paid at 03:30 UTC starts the period on the store’s own day', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    at('2026-12-01T03:30:00.000Z');
    for (const zone of ZONES) {
      const { key } = stores[zone];
      const product = await recurringProduct(api, key);
      const sub = (await subscribe(api, key, product.id)).body;
      expect((await api.as(key).post(`/payments/pix/${sub.first_charge.id}/simulate_payment`)).status).toBe(
        200,
      );
      stores[zone].subscriptionId = sub.id;
    }
    expect(await subscriptionOf('America/Manaus')).toMatchObject({
      current_period_start: '2026-11-30',
      next_charge_date: '2026-12-30',
    });
    for (const zone of ['America/Sao_Paulo', 'UTC'] as const) {
      expect(await subscriptionOf(zone)).toMatchObject({
        current_period_start: '2026-12-01',
        next_charge_date: '2027-01-01',
      });
    }
  });

  it('the scheduler sends each cycle 5 days ahead when that day has come in the store’s zone', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    // Manaus is due 2026-12-30: its charge goes on 12-25, Manaus time (04:00 UTC).
    at('2026-12-25T03:30:00.000Z');
    expect(await sentNow()).toEqual([]);
    at('2026-12-25T04:30:00.000Z');
    expect(await sentNow()).toEqual(['America/Manaus']);
    // São Paulo and UTC are due 2027-01-01: the charge goes on 12-27, at midnight of each.
    at('2026-12-27T02:30:00.000Z');
    expect(await sentNow()).toEqual(['UTC']);
    at('2026-12-27T03:30:00.000Z');
    expect(await sentNow()).toEqual(['America/Sao_Paulo']);
    for (const zone of ZONES) {
      const cycles = await api.db
        .selectFrom('subscription_cycles')
        .select(['cycle', 'due_date'])
        .where('subscription_id', '=', stores[zone].subscriptionId)
        .execute();
      expect(cycles).toEqual([
        { cycle: 2, due_date: zone === 'America/Manaus' ? '2026-12-30' : '2027-01-01' },
      ]);
    }
  });

  it('run-cycles --as-of plays that day in every zone; without it, --json says as_of null', async () => {
    // Past the first cycle: the next ones fall due in each store's period, counted from its own anchor.
    for (const zone of ZONES) {
      const { key, subscriptionId } = stores[zone];
      expect((await api.as(key).post(`/subscriptions/${subscriptionId}/simulate_renewal`)).status).toBe(200);
    }
    const run = async (...args: string[]) => {
      const result = await runCli(env, 'subscriptions', 'run-cycles', '--json', ...args);
      if (result.code !== 0) throw new Error(result.stderr);
      return JSON.parse(result.stdout);
    };
    // Manaus: due 2027-01-30, sent from 01-25; São Paulo and UTC: due 2027-02-01, sent from 01-27.
    // (This suite's database holds these three stores only.)
    const zoneOf = (id: string) => ZONES.find((zone) => stores[zone].subscriptionId === id);
    for (const [asOf, expected] of [
      ['2027-01-24', []],
      ['2027-01-25', ['America/Manaus']],
      ['2027-01-27', ['America/Sao_Paulo', 'UTC']],
    ] as const) {
      const report = await run('--as-of', asOf);
      expect(report.as_of).toBe(asOf);
      expect(
        report.charges_sent.map((c: { subscription_id: string }) => zoneOf(c.subscription_id)).sort(),
      ).toEqual(expected);
    }
    const today = await run('--store', stores.UTC.storeId);
    expect(today).toMatchObject({ as_of: null, store_id: stores.UTC.storeId, charges_sent: [] });
    expect(
      (await runCli(env, 'subscriptions', 'run-cycles', '--store', stores.UTC.storeId)).stdout,
    ).toContain('as of today (each store’s own day, in its time zone)');
  });
});
