import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { recordEvent } from '../events/outbox.js';
import { invalidRequest } from '../http/api-error.js';
import { pixProviderFor } from '../pix/providers/index.js';
import { nowIso } from '../shared/time.js';
import { toSale } from './sale-object.js';
import type { Sale, SalesTable } from './sale-object.js';
import { markRefunded } from './sales-repository.js';

const alreadyRefunded = () => invalidRequest('This sale is already refunded.');

/**
 * Refunds a whole sale: the provider returns the Pix to the payer (`devolucao`; simulated for test
 * keys), then the sale becomes refunded with its `sale.refunded` event. The refund id is the sale's,
 * so a provider call repeated after a failure does not refund twice.
 */
export async function refundSale(db: Kysely<Database>, row: SalesTable): Promise<Sale> {
  if (row.status === 'refunded') throw alreadyRefunded();
  const livemode = row.livemode === 1;
  const provider = pixProviderFor(livemode);
  if (row.pix_end_to_end_id !== null) {
    await provider.refund({
      endToEndId: row.pix_end_to_end_id,
      refundId: row.id.replace(/-/g, ''),
      amountCents: row.amount_cents,
    });
  }
  return db.transaction().execute(async (trx) => {
    const refundedAt = nowIso();
    if (!(await markRefunded(trx, row.id, refundedAt))) throw alreadyRefunded();
    const sale = toSale({ ...row, status: 'refunded', refunded_at: refundedAt });
    await recordEvent(trx, { storeId: row.store_id, livemode, type: 'sale.refunded', object: sale });
    return sale;
  });
}
