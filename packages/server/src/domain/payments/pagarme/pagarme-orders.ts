import type { PagarmeTransport } from './pagarme-transport.js';
import type { PagarmeOrder, PagarmeOrderRequest } from './pagarme-wire.js';

/** `POST /orders`: the order, its charge and the card's authorisation in one call. */
export function createOrder(
  transport: PagarmeTransport,
  order: PagarmeOrderRequest,
  idempotencyKey: string,
): Promise<PagarmeOrder> {
  return transport.call<PagarmeOrder>('POST', '/orders', { body: order, idempotencyKey });
}

/** `GET /orders/{order_id}`: the order as Pagar.me tells it now, charges included. */
export function getOrder(transport: PagarmeTransport, orderId: string): Promise<PagarmeOrder> {
  return transport.call<PagarmeOrder>('GET', `/orders/${encodeURIComponent(orderId)}`);
}
