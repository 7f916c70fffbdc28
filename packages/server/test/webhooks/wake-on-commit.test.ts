import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDeliveryWorker } from '../../src/domain/webhooks/delivery/worker.js';
import type { DeliveryWorker } from '../../src/domain/webhooks/delivery/worker.js';
import { startHttpsReceiver } from '../support/https-receiver.js';
import type { HttpsReceiver, ReceivedRequest } from '../support/https-receiver.js';
import { describeEachDatabase } from '../support/test-api.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import { createShop, pageRequest, placeOrder, saleOfOrder } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';
import {
  TEST_DELIVERY,
  allowedHosts,
  createEndpoint,
  requestsTo,
  silentLog,
  uniqueUrl,
} from './delivery-harness.js';

/** Long enough that a delivery within DELIVERY_BOUND_MS cannot be the worker's poll. */
const POLL_INTERVAL_MS = 60_000;
const DELIVERY_BOUND_MS = 2_000;

/** The first request to `url` carrying an event of `type`, once it arrives (or undefined after the bound). */
async function deliveryOf(
  receiver: HttpsReceiver,
  url: string,
  type: string,
  since: number,
): Promise<ReceivedRequest | undefined> {
  const deadline = since + DELIVERY_BOUND_MS;
  for (;;) {
    const found = requestsTo(receiver, url).find(
      (r) => (JSON.parse(r.body) as { type: string }).type === type,
    );
    if (found || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * The webhook worker is nudged when the transaction that recorded an event commits, whatever wrote
 * it: not only API requests, but the purchase page and the dashboard too. The worker here polls once
 * a minute, so only the nudge can explain a delivery within two seconds.
 */
describeEachDatabase(
  'webhooks leave when their events commit, whatever wrote them',
  (api) => {
    let receiver: HttpsReceiver;
    let worker: DeliveryWorker;
    let shop: Shop;
    let url: string;

    beforeAll(async () => {
      receiver = await startHttpsReceiver({ port: 8443 });
      allowedHosts.add(receiver.host);
      shop = await createShop(api);
      url = uniqueUrl(receiver);
      await createEndpoint(api, shop.key, url, { events: ['sale.approved', 'sale.refunded'] });
      worker = startDeliveryWorker({
        db: api.db,
        config: { ...api.config, ...TEST_DELIVERY },
        log: silentLog,
        tls: { ca: receiver.ca },
        pollIntervalMs: POLL_INTERVAL_MS,
      });
    });
    afterAll(async () => {
      await worker?.stop();
      await receiver?.close();
    });

    let token: string;

    it('a payment on the purchase page has its sale.approved delivered without waiting for a poll', async () => {
      ({ token } = (await placeOrder(api, shop)) as { token: string });
      const paid = await pageRequest(api, 'POST', `/p/o/${token}/simulate`, {});
      const answeredAt = Date.now();
      expect(paid.status).toBe(200);
      const delivery = await deliveryOf(receiver, url, 'sale.approved', answeredAt);
      expect(delivery, `no sale.approved within ${DELIVERY_BOUND_MS} ms`).toBeDefined();
      expect(delivery!.receivedAt.getTime() - answeredAt).toBeLessThan(DELIVERY_BOUND_MS);
    });

    it('a refund from the dashboard has its sale.refunded delivered without waiting for a poll', async () => {
      const sale = await saleOfOrder(api, shop, token);
      const owner = await dashboardLogin(api.baseUrl, await addDashboardUser(api, shop.storeId, 'owner'));
      const refunded = await dashboardRequest(
        api.baseUrl,
        owner,
        'POST',
        `/dashboard/vendas/${sale.id}/reembolso`,
      );
      const answeredAt = Date.now();
      expect(refunded.status).toBe(303);
      const delivery = await deliveryOf(receiver, url, 'sale.refunded', answeredAt);
      expect(delivery, `no sale.refunded within ${DELIVERY_BOUND_MS} ms`).toBeDefined();
      expect(delivery!.receivedAt.getTime() - answeredAt).toBeLessThan(DELIVERY_BOUND_MS);
    });
  },
  { config: { webhookAllowedHosts: allowedHosts } },
);
