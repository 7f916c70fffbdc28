import type { Kysely } from 'kysely';
import { reusedInsert } from '../../platform/db/reused-query.js';
import { fromBool } from '../../platform/db/schema.js';
import type { Database } from '../../platform/db/schema.js';
import type { SalesTable } from './sale-object.js';

/** Scoped by store and mode, like charges: a test key never sees a live sale. */
export interface SaleScope {
  storeId: string;
  livemode: boolean;
}

export function listSalesQuery(db: Kysely<Database>, scope: SaleScope) {
  return db
    .selectFrom('sales')
    .selectAll()
    .where('store_id', '=', scope.storeId)
    .where('livemode', '=', fromBool(scope.livemode));
}

export function findSale(db: Kysely<Database>, scope: SaleScope, id: string) {
  return listSalesQuery(db, scope).where('id', '=', id).executeTakeFirst();
}

const insertSaleRow = reusedInsert('insert sale', (db: Kysely<Database>, row: SalesTable) =>
  db.insertInto('sales').values(row),
);

export async function insertSale(db: Kysely<Database>, row: SalesTable): Promise<void> {
  await insertSaleRow(db, row);
}

/** approved → refunded once: returns whether this call did it, so a race refunds (and emits) once. */
export async function markRefunded(db: Kysely<Database>, id: string, refundedAt: string): Promise<boolean> {
  const result = await db
    .updateTable('sales')
    .set({ status: 'refunded', refunded_at: refundedAt })
    .where('id', '=', id)
    .where('status', '=', 'approved')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
