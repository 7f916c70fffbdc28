import type { Kysely } from 'kysely';
import { countRefund } from '../domain/analytics/daily-totals.js';
import type { Database } from '../platform/db/schema.js';
import { recordEvent } from '../platform/outbox/outbox.js';
import { toSale } from '../domain/sales/sale-object.js';
import type { Sale, SalesTable } from '../domain/sales/sale-object.js';

/**
 * A chargeback the PSP reported: the buyer disputed the card payment and the money went back to them.
 * In the caller's transaction, an approved sale (a refund still pending at the PSP included) becomes
 * `charged_back` at `at`; the day of `at` counts its amount as taken back, as a refund's does; and
 * `sale.charged_back` is recorded with the sale. A sale already refunded or charged back changes
 * nothing: the answer is null, so a repeated report (a notification and the reconciler) counts and
 * emits once.
 */
export async function chargeBackSale(
  trx: Kysely<Database>,
  row: SalesTable,
  at: string,
): Promise<Sale | null> {
  const result = await trx
    .updateTable('sales')
    // The money is gone: a refund still pending has nothing left to wait for.
    .set({ status: 'charged_back', charged_back_at: at, refund_next_check_at: null })
    .where('id', '=', row.id)
    .where('status', '=', 'approved')
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) return null;
  await countRefund(trx, row, at);
  const sale = toSale(
    await trx.selectFrom('sales').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow(),
  );
  await recordEvent(trx, {
    storeId: row.store_id,
    livemode: row.livemode === 1,
    type: 'sale.charged_back',
    object: sale,
  });
  return sale;
}
