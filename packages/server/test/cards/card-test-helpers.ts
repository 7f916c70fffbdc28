import { randomUUID } from 'node:crypto';
import type { TestApi } from '../support/test-api.js';

/** A buyer the PSPs accept: name, e-mail and a valid CPF. */
export const BUYER = { name: 'Ana Souza', email: 'ana@example.com.br', document: '52998224725' } as const;

/** `POST /payments/card` with a fresh Idempotency-Key unless one is given. */
export function payByCard(
  api: TestApi,
  key: string,
  body: Record<string, unknown>,
  idempotencyKey: string | null = randomUUID(),
) {
  return api.request('POST', '/payments/card', {
    key,
    body: { customer: BUYER, ...body },
    headers: idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey },
  });
}

/** Every event of a store, oldest first, as `type` and the id of its object. */
export async function storeEvents(api: TestApi, storeId: string) {
  const rows = await api.db
    .selectFrom('events')
    .selectAll()
    .where('store_id', '=', storeId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => {
    const payload = JSON.parse(row.payload) as { data: { object: { id: string } } };
    return { type: row.type, id: payload.data.object.id, payload: row.payload };
  });
}

/** What the price table charges for `n` installments of `amountCents` at `ratePercent` a month. */
export function priceTable(amountCents: number, n: number, ratePercent: number) {
  const i = ratePercent / 100;
  const installment = Math.round((amountCents * i) / (1 - (1 + i) ** -n));
  return { installmentCents: installment, totalCents: installment * n };
}
