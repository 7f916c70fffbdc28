import { beforeAll, expect, it } from 'vitest';
import * as cardTotals from '../../src/platform/db/migrations/0030-card-totals.js';
import { addDays, localDate } from '../../src/platform/values/local-date.js';
import { paidSale } from '../dashboard/vendas-support.js';
import { createShop, placeOrder } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';
import { describeEachDatabase } from '../support/test-api.js';
import { cardSale, chargeBack } from './card-sale-support.js';

describeEachDatabase('analytics summary by payment method', (api) => {
  let shop: Shop;
  let pixSale: string;
  let cardWithInterest: { payment: any; saleId: string };

  // Around today in the store's zone, so a run near midnight still sees every fact.
  const today = () => localDate(new Date(), 'America/Sao_Paulo');
  const summary = async () => {
    const res = await api
      .as(shop.key)
      .get(`/analytics/summary?from=${addDays(today(), -1)}&to=${addDays(today(), 1)}`);
    expect(res.status, res.text).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    shop = await createShop(api);
    pixSale = await paidSale(api, shop.key, 10, { name: 'Rui', email: 'rui@example.com' });
    // 3x at the default 2.99 % a month: the buyer pays more than 100, the sale counts 100.
    cardWithInterest = await cardSale(api, shop.key, { amount: 100, installments: 3 });
    expect(cardWithInterest.payment.total_amount).toBeGreaterThan(100);
    await cardSale(api, shop.key, { amount: 50, installments: 1 });
    // A free order (a coupon takes the whole price): a sale of 0, paid by neither.
    await api.as(shop.key).post('/coupons', { code: 'TUDO', amount_off: 500 });
    expect((await placeOrder(api, shop, { coupon: 'TUDO' })).res.status).toBe(201);
  });

  it('splits sales and gross by Pix and card; a card sale counts its price without interest, a free one neither', async () => {
    expect(await summary()).toMatchObject({
      sales: 4,
      gross_amount: 160,
      refunded_amount: 0,
      net_amount: 160,
      by_method: { pix: { sales: 1, gross_amount: 10 }, card: { sales: 2, gross_amount: 150 } },
    });
  });

  it('a refund and a chargeback take the money off the net, as on the day they happen; the split keeps the sales', async () => {
    expect((await api.as(shop.key).post(`/sales/${pixSale}/refund`)).status).toBe(200);
    expect((await chargeBack(api, cardWithInterest.saleId))?.status).toBe('charged_back');
    expect(await summary()).toMatchObject({
      sales: 4,
      gross_amount: 160,
      refunded_amount: 110,
      net_amount: 50,
      by_method: { pix: { sales: 1, gross_amount: 10 }, card: { sales: 2, gross_amount: 150 } },
    });
    // A second report of the chargeback takes nothing more.
    expect(await chargeBack(api, cardWithInterest.saleId)).toBeNull();
    expect((await summary()).refunded_amount).toBe(110);
  });

  it('migration 0030 fills the split of days already counted from their sales', async () => {
    const before = await summary();
    const raw = api.db as never;
    await cardTotals.down(raw);
    await cardTotals.up(raw);
    expect(await summary()).toEqual(before);
    const product = await api
      .as(shop.key)
      .get(
        `/analytics/summary?from=${addDays(today(), -1)}&to=${addDays(today(), 1)}&product_id=${shop.product.id}`,
      );
    // The free order is the product's only sale.
    expect(product.body).toMatchObject({
      sales: 1,
      by_method: { pix: { sales: 0, gross_amount: 0 }, card: { sales: 0, gross_amount: 0 } },
    });
  });
});
