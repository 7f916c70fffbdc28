import { beforeAll, expect, it } from 'vitest';
import { expireDueCharges } from '../../src/domain/pix/expiry-sweeper.js';
import { isoAfter } from '../../src/platform/values/time.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import { eventsFor } from './pix-test-helpers.js';

describeEachDatabase('pix charge expiry', (api) => {
  let key: string;
  let storeId: string;
  const moveIntoPast = (id: string) =>
    api.db
      .updateTable('pix_charges')
      .set({ expires_at: isoAfter(-1000) })
      .where('id', '=', id)
      .execute();

  beforeAll(async () => {
    ({ key, storeId } = await api.createStore());
  });

  it('a charge past expires_at reads as expired at once, before any sweep', async () => {
    const charge = (
      await api.as(key).post('/payments/pix', { amount: 5, expires_in: 60, external_id: 'exp-1' })
    ).body;
    await moveIntoPast(charge.id);

    expect((await api.as(key).get(`/payments/pix/${charge.id}`)).body.status).toBe('expired');
    expect((await api.as(key).get('/payments/pix/external/exp-1')).body.status).toBe('expired');
    const ids = async (status: string) =>
      (await api.as(key).get(`/payments/pix?status=${status}`)).body.data.map((c: { id: string }) => c.id);
    expect(await ids('expired')).toContain(charge.id);
    expect(await ids('pending')).not.toContain(charge.id);
    // Reusing its external_id answers the expired charge; nothing new is created.
    const again = await api.as(key).post('/payments/pix', { amount: 5, external_id: 'exp-1' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: charge.id, status: 'expired' });
  });

  it('paying an expired charge is 400 and writes nothing', async () => {
    const charge = (await api.as(key).post('/payments/pix', { amount: 5, expires_in: 60 })).body;
    await moveIntoPast(charge.id);
    expectError(
      await api.as(key).post(`/payments/pix/${charge.id}/simulate_payment`),
      400,
      'invalid_request',
    );
    const row = await api.db
      .selectFrom('pix_charges')
      .selectAll()
      .where('id', '=', charge.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'pending', paid_at: null });
    expect(
      await api.db.selectFrom('sales').select('id').where('pix_charge_id', '=', charge.id).execute(),
    ).toEqual([]);
  });

  it('the sweeper writes expired and records pix.expired exactly once per charge', async () => {
    const charge = (await api.as(key).post('/payments/pix', { amount: 5, expires_in: 60 })).body;
    const stillPending = (await api.as(key).post('/payments/pix', { amount: 6, expires_in: 60 })).body;
    await moveIntoPast(charge.id);

    expect(await expireDueCharges(api.db)).toBeGreaterThanOrEqual(1);
    const events = await eventsFor(api, storeId, charge.id, 'pix.expired');
    expect(events).toHaveLength(1);
    expect(events[0]!.payload.data.object).toMatchObject({
      id: charge.id,
      status: 'expired',
      livemode: false,
    });
    const row = await api.db
      .selectFrom('pix_charges')
      .select('status')
      .where('id', '=', charge.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('expired');

    expect(await expireDueCharges(api.db)).toBe(0);
    expect(await eventsFor(api, storeId, charge.id, 'pix.expired')).toHaveLength(1);
    expect(await eventsFor(api, storeId, stillPending.id, 'pix.expired')).toHaveLength(0);
    expect((await api.as(key).get(`/payments/pix/${stillPending.id}`)).body.status).toBe('pending');
  });

  it('sweepers racing on the same charges still record one event each', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await api.as(key).post('/payments/pix', { amount: 1, expires_in: 60 })).body.id);
    for (const id of ids) await moveIntoPast(id);
    const counts = await Promise.all([
      expireDueCharges(api.db),
      expireDueCharges(api.db),
      expireDueCharges(api.db),
    ]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(5);
    for (const id of ids) expect(await eventsFor(api, storeId, id, 'pix.expired')).toHaveLength(1);
  });
});
