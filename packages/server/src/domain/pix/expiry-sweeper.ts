import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { recordEvent } from '../../platform/outbox/outbox.js';
import { countPixCharge } from '../../platform/metrics/metrics.js';
import { nowIso } from '../../platform/values/time.js';
import { chargeChanged } from './charge-signals.js';
import { toPixCharge } from './pix-charge-object.js';
import type { PixChargesTable } from './pix-charge-object.js';
import { findDueCharges, markExpired } from './pix-charges-repository.js';

const BATCH = 100;

/**
 * Writes `expired` on every pending charge past `expires_at` and records `pix.expired` for each.
 * Readers already see such charges as expired; this makes it durable and tells webhooks. Each
 * charge flips in its own transaction with a conditional update, so several nodes sweeping at once
 * (or a payment racing the sweep) still give exactly one outcome and one event per charge.
 * Returns how many charges this call expired.
 */
export async function expireDueCharges(db: Kysely<Database>): Promise<number> {
  const now = nowIso();
  let expired = 0;
  for (;;) {
    const due = await findDueCharges(db, now, BATCH);
    for (const row of due) {
      if (!(await expireCharge(db, row, now))) continue;
      expired++;
      countPixCharge('expired', row.livemode);
    }
    if (due.length < BATCH) return expired;
  }
}

/**
 * Flips one charge to expired with `mark` (a conditional update) and records `pix.expired` in the
 * same transaction; returns whether this call did it.
 */
export async function expireCharge(
  db: Kysely<Database>,
  row: PixChargesTable,
  now: string,
  mark: (trx: Kysely<Database>, id: string, now: string) => Promise<boolean> = markExpired,
): Promise<boolean> {
  const expired = await db.transaction().execute(async (trx) => {
    if (!(await mark(trx, row.id, now))) return false;
    await recordEvent(trx, {
      storeId: row.store_id,
      livemode: row.livemode === 1,
      type: 'pix.expired',
      object: toPixCharge(
        { ...row, status: 'expired', expires_at: row.expires_at < now ? row.expires_at : now },
        now,
      ),
    });
    return true;
  });
  if (expired) chargeChanged(row.id);
  return expired;
}
