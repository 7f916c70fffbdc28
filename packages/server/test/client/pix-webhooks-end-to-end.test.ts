import { expect, it } from 'vitest';
import { Storefront, WebhookVerificationError, verifyWebhook } from '../../../client/src/index.js';
import { describeEachDatabase } from '../support/test-api.js';
import {
  allowedHosts,
  eventually,
  requestsTo,
  useReceiverAndWorker,
  uniqueUrl,
} from '../webhooks/delivery-harness.js';

/**
 * The whole path a store's developer relies on: a Pix charge paid in test mode, its events delivered
 * by the worker to a real HTTPS receiver, and verified there with the official client.
 */
describeEachDatabase(
  'Pix payment to a verified webhook, end to end',
  (api) => {
    const delivery = useReceiverAndWorker(api);

    it('delivers pix.paid then sale.approved, signed, and verifyWebhook returns each event', async () => {
      const receiver = delivery.receiver();
      const { key } = await api.createStore();
      const client = new Storefront({ apiKey: key, baseUrl: api.baseUrl });
      const url = uniqueUrl(receiver);
      const endpoint = await client.webhookEndpoints.create({ url, events: ['pix.paid', 'sale.approved'] });

      const charge = await client.pix.create({ amount: 99.9, external_id: 'pedido-e2e-1' });
      await client.pix.simulatePayment(charge.id);

      const received = await eventually(async () => {
        const requests = requestsTo(receiver, url);
        return requests.length >= 2 ? requests : undefined;
      });
      const events = received.map((request) =>
        verifyWebhook({ headers: request.headers, rawBody: request.body, secret: endpoint.secret }),
      );
      const byType = new Map(events.map((event) => [event.type, event]));
      expect([...byType.keys()].sort()).toEqual(['pix.paid', 'sale.approved']);

      const paid = byType.get('pix.paid')!;
      const approved = byType.get('sale.approved')!;
      if (paid.type !== 'pix.paid' || approved.type !== 'sale.approved') throw new Error('narrowing');
      expect(paid.data.object).toMatchObject({ id: charge.id, status: 'paid', amount: 99.9 });
      expect(approved.data.object).toMatchObject({
        pix_charge_id: charge.id,
        status: 'approved',
        amount: 99.9,
      });
      expect(paid.created_at < approved.created_at).toBe(true);
      expect(received.map((r) => r.headers['service-event-id']).sort()).toEqual(
        events.map((e) => e.id).sort(),
      );

      // The same request with another secret, or re-serialized, is refused.
      const [first] = received;
      expect(() =>
        verifyWebhook({ headers: first!.headers, rawBody: first!.body, secret: 'whsec_not_the_secret' }),
      ).toThrow(WebhookVerificationError);
      expect(() =>
        verifyWebhook({
          headers: first!.headers,
          rawBody: JSON.stringify(JSON.parse(first!.body), null, 2),
          secret: endpoint.secret,
        }),
      ).toThrow(WebhookVerificationError);

      // And the history the API keeps shows both successful attempts (recorded just after the answer).
      const statuses = await eventually(async () => {
        const { data } = await client.webhookEndpoints.listDeliveries(endpoint.id);
        return data.length >= 2 ? data.map((d) => d.response_status) : undefined;
      });
      expect(statuses).toEqual([200, 200]);
    });
  },
  { config: { webhookAllowedHosts: allowedHosts } },
);
