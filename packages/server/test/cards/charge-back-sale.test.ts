import { beforeAll, expect, it } from 'vitest';
import { eventsFor } from '../pix/pix-test-helpers.js';
import { paidSale } from '../dashboard/vendas-support.js';
import { describeEachDatabase } from '../support/test-api.js';
import { cardSale, chargeBack } from './card-sale-support.js';

const AT = '2026-11-30T15:00:00.000Z';

describeEachDatabase('chargeBackSale: a disputed card sale', (api) => {
  let key: string;
  let storeId: string;
  beforeAll(async () => {
    ({ key, storeId } = await api.createStore());
  });

  it('an approved sale becomes charged_back at the reported time, with sale.charged_back, once', async () => {
    const { payment, saleId } = await cardSale(api, key);
    const sale = await chargeBack(api, saleId, AT);
    expect(sale).toMatchObject({
      id: saleId,
      status: 'charged_back',
      payment_method: 'card',
      card_payment_id: payment.id,
      installments: 3,
      amount: 100,
    });
    expect((await api.as(key).get(`/sales/${saleId}`)).body).toEqual(sale);
    const row = await api.db
      .selectFrom('sales')
      .select('charged_back_at')
      .where('id', '=', saleId)
      .executeTakeFirstOrThrow();
    expect(row.charged_back_at).toBe(AT);
    const events = await eventsFor(api, storeId, saleId, 'sale.charged_back');
    expect(events).toHaveLength(1);
    expect(events[0]!.payload.data.object).toEqual(sale);
    expect(events[0]!.payload.livemode).toBe(false);

    // The PSP reports it again (a notification and the reconciler): nothing changes, nothing is told.
    expect(await chargeBack(api, saleId, '2026-12-01T15:00:00.000Z')).toBeNull();
    expect(await eventsFor(api, storeId, saleId, 'sale.charged_back')).toHaveLength(1);
    const again = await api.db
      .selectFrom('sales')
      .select(['status', 'charged_back_at'])
      .where('id', '=', saleId)
      .executeTakeFirstOrThrow();
    expect(again).toEqual({ status: 'charged_back', charged_back_at: AT });
  });

  it('a sale whose refund is still pending at the PSP is charged back, and stops waiting for the refund', async () => {
    const { saleId } = await cardSale(api, key);
    await api.db
      .updateTable('sales')
      .set({
        refund_status: 'pending',
        refund_id: 'r-1',
        refund_requested_at: AT,
        refund_next_check_at: '2026-11-30T15:05:00.000Z',
      })
      .where('id', '=', saleId)
      .execute();
    expect((await chargeBack(api, saleId, AT))?.status).toBe('charged_back');
    const row = await api.db
      .selectFrom('sales')
      .select(['status', 'refund_next_check_at'])
      .where('id', '=', saleId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'charged_back', refund_next_check_at: null });
  });

  it('a refunded sale is not charged back', async () => {
    const saleId = await paidSale(api, key, 25, { name: 'Rui', email: 'rui@example.com' });
    expect((await api.as(key).post(`/sales/${saleId}/refund`)).status).toBe(200);
    expect(await chargeBack(api, saleId, AT)).toBeNull();
    expect((await api.as(key).get(`/sales/${saleId}`)).body.status).toBe('refunded');
    expect(await eventsFor(api, storeId, saleId, 'sale.charged_back')).toEqual([]);
  });
});
