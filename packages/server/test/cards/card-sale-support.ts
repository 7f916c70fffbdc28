import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import { chargeBackSale } from '../../src/flows/charge-back-sale.js';
import type { Database } from '../../src/platform/db/schema.js';
import { nowIso } from '../../src/platform/values/time.js';
import type { TestApi } from '../support/test-api.js';

export const CARD_BUYER = { name: 'Ana Souza', email: 'ana@example.com', document: '529.982.247-25' };

let keys = 0;

/** An approved card sale made through `POST /payments/card` (simulated provider); its payment and sale. */
export async function cardSale(
  api: TestApi,
  key: string,
  body: Record<string, unknown> = {},
): Promise<{ payment: any; saleId: string }> {
  const res = await api
    .as(key)
    .post(
      '/payments/card',
      { amount: 100, installments: 3, customer: CARD_BUYER, card: { token: 'tok_test_approved' }, ...body },
      { 'idempotency-key': `card-sale-${++keys}-${Date.now()}` },
    );
  expect(res.status, res.text).toBe(201);
  expect(res.body.status).toBe('approved');
  return { payment: res.body, saleId: res.body.sale_id };
}

/** The store's installments up to `n` interest-free (the settings' own API is not this test's subject). */
export async function interestFreeUpTo(api: TestApi, storeId: string, n: number): Promise<void> {
  await api.db
    .updateTable('stores')
    .set({ card_interest_free_installments: n })
    .where('id', '=', storeId)
    .execute();
}

/** Runs `chargeBackSale` in a transaction of its own, as the PSP's report does; what it answered. */
export async function chargeBack(api: TestApi, saleId: string, at = nowIso()) {
  return api.db.transaction().execute(async (trx: Kysely<Database>) => {
    const row = await trx.selectFrom('sales').selectAll().where('id', '=', saleId).executeTakeFirstOrThrow();
    return chargeBackSale(trx, row, at);
  });
}
