import { expect, it } from 'vitest';
import { describeEachDatabase } from '../support/test-api.js';
import { chargeOfOrder, createShop, pageRequest, placeOrder } from './page-support.js';

/**
 * Ten buyers race for a coupon with five redemptions. Decision: a pending order holds a redemption
 * until its Pix expires, so exactly five orders get the discount and the sixth (and later) are told
 * by the coupon field that it ran out, before paying; they can buy without it. Redemptions are
 * counted when each sale is approved, once each, however the payments race.
 */
describeEachDatabase(
  'coupon redemptions under concurrent orders',
  (api) => {
    it('10 concurrent orders for a 5-redemption coupon: 5 discounted, the rest refused; 10 paid sales count 5 redemptions', async () => {
      const shop = await createShop(api);
      const coupon = (
        await api.as(shop.key).post('/coupons', { code: 'CINCO', percent_off: 50, max_redemptions: 5 })
      ).body;
      const attempts = await Promise.all(
        Array.from({ length: 10 }, () => placeOrder(api, shop, { coupon: 'CINCO' })),
      );
      const accepted = attempts.filter((a) => a.res.status === 201);
      const refused = attempts.filter((a) => a.res.status !== 201);
      expect(accepted).toHaveLength(5);
      for (const { res } of refused) {
        expect(res.status).toBe(400);
        expect(res.json.fields).toEqual({ coupon: 'Este cupom esgotou.' });
      }
      // The refused buyers buy without the coupon: ten orders in all.
      const fullPrice = await Promise.all(refused.map(() => placeOrder(api, shop)));
      const tokens = [...accepted, ...fullPrice].map((a) => a.token!);
      expect(tokens).toHaveLength(10);

      // All ten paid at once, each twice (page and API racing): one sale each, five redemptions.
      const chargeIds = await Promise.all(tokens.map((token) => chargeOfOrder(api, token)));
      await Promise.all([
        ...tokens.map((token) => pageRequest(api, 'POST', `/p/o/${token}/simulate`, {})),
        ...chargeIds.map((id) => api.as(shop.key).post(`/payments/pix/${id}/simulate_payment`)),
      ]);
      const sales = (await api.as(shop.key).get('/sales?limit=100')).body.data;
      expect(sales).toHaveLength(10);
      const discounted = sales.filter((s: any) => s.coupon !== null);
      expect(discounted).toHaveLength(5);
      for (const sale of discounted)
        expect(sale).toMatchObject({ amount: 50, coupon: { code: 'CINCO', discount: 50 } });
      expect((await api.as(shop.key).get(`/coupons/${coupon.id}`)).body.times_redeemed).toBe(5);
      // Exhausted now for good: a new order is refused.
      expect((await placeOrder(api, shop, { coupon: 'CINCO' })).res.json.fields).toEqual({
        coupon: 'Este cupom esgotou.',
      });
    });
  },
  { config: { orderRateLimitPerMinute: 1000 } },
);
