import type { MercadoPagoTransport } from './mercadopago-transport.js';
import type { MpInstallments, MpPayment, MpPaymentRequest, MpRefund } from './mercadopago-types.js';

const segment = encodeURIComponent;

/** Thin calls, one per Mercado Pago resource this service uses; the transport owns auth, TLS and errors. */
export function mercadoPagoClient(transport: MercadoPagoTransport) {
  return {
    createPayment: (body: MpPaymentRequest, idempotencyKey: string) =>
      transport.call<MpPayment>('POST', '/v1/payments', { body, idempotencyKey }),
    getPayment: (id: string) => transport.call<MpPayment>('GET', `/v1/payments/${segment(id)}`),
    /** `amount` in reais; a refund of the whole remaining amount turns the payment `refunded`. */
    refund: (id: string, amount: number, idempotencyKey: string) =>
      transport.call<MpRefund>('POST', `/v1/payments/${segment(id)}/refunds`, {
        body: { amount },
        idempotencyKey,
      }),
    /** One entry per payment method the BIN matches (a credit card: one), each with its payer costs. */
    installments: (amount: number, bin: string) =>
      transport.call<MpInstallments[]>(
        'GET',
        `/v1/payment_methods/installments?${new URLSearchParams({ amount: amount.toFixed(2), bin }).toString()}`,
      ),
    close: () => transport.close(),
  };
}

export type MercadoPagoClient = ReturnType<typeof mercadoPagoClient>;
