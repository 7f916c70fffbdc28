import { randomUUID } from 'node:crypto';
import type { TestApi } from '../support/test-api.js';

/** A test sale paid through the API (a simulated Pix) with this customer; returns the sale's id. */
export async function paidSale(
  api: TestApi,
  key: string,
  amount: number,
  customer: Record<string, string>,
): Promise<string> {
  const charge = await api.as(key).post('/payments/pix', { amount, customer });
  if (charge.status !== 201) throw new Error(`charge not created: ${charge.text}`);
  await api.as(key).post(`/payments/pix/${charge.body.id}/simulate_payment`);
  const row = await api.db
    .selectFrom('sales')
    .select('id')
    .where('pix_charge_id', '=', charge.body.id)
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * `count` copies of a real sale, one second apart going back from it, each with its own id and a
 * numbered customer: volume for pagination and the export without thousands of Pix round trips.
 */
export async function cloneSales(api: TestApi, saleId: string, count: number): Promise<string[]> {
  const sale = await api.db
    .selectFrom('sales')
    .selectAll()
    .where('id', '=', saleId)
    .executeTakeFirstOrThrow();
  const start = Date.parse(sale.created_at);
  const rows = Array.from({ length: count }, (_, i) => ({
    ...sale,
    id: randomUUID(),
    pix_charge_id: null,
    created_at: new Date(start - (i + 1) * 1000).toISOString(),
    customer: JSON.stringify({ name: `Cliente ${i}`, email: `cliente${i}@example.com` }),
  }));
  for (let i = 0; i < rows.length; i += 100)
    await api.db
      .insertInto('sales')
      .values(rows.slice(i, i + 100))
      .execute();
  return rows.map((row) => row.id);
}
