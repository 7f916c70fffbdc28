import type { PagarmeTransport } from './pagarme-transport.js';
import type { PagarmeCharge } from './pagarme-wire.js';

/**
 * `DELETE /charges/{charge_id}`: cancels a card charge, which for a captured one is a refund to the
 * card (`amount` in cents; less than the charge's amount refunds part of it).
 */
export function cancelCharge(
  transport: PagarmeTransport,
  chargeId: string,
  amountCents: number,
  idempotencyKey: string,
): Promise<PagarmeCharge> {
  return transport.call<PagarmeCharge>('DELETE', `/charges/${encodeURIComponent(chargeId)}`, {
    body: { amount: amountCents },
    idempotencyKey,
  });
}
