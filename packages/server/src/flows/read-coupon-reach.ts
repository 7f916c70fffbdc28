import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';
import { activeProductsByCheckout } from '../domain/catalogue/products-repository.js';
import { listCheckoutsQuery } from '../domain/checkouts/checkouts-repository.js';
import { settingsOf } from '../domain/checkouts/checkout-service.js';

/** A checkout a coupon's products are sold through, and whether its page has a coupon field. */
export interface CheckoutReach {
  id: string;
  name: string;
  isDefault: boolean;
  showsField: boolean;
  /** The coupon's active one-time products sold through this checkout. */
  products: number;
}

export interface CouponReach {
  checkouts: CheckoutReach[];
  /** Active subscription products in the coupon's scope: their pages never take a coupon. */
  recurringProducts: number;
}

/**
 * Where buyers can type a coupon of these products (none: every product of the store): each active
 * product is sold through its own checkout, or the default one when it has none or it was archived,
 * and only a checkout with `checkout_cupom_enabled` shows the field. A coupon the seller made is of
 * no use until one of these pages shows it, so the dashboard says so.
 */
export async function readCouponReach(
  db: Kysely<Database>,
  storeId: string,
  productIds: string[],
): Promise<CouponReach> {
  const [counts, checkouts] = await Promise.all([
    activeProductsByCheckout(db, storeId, productIds),
    listCheckoutsQuery(db, storeId).execute(),
  ]);
  const usable = new Map(checkouts.filter((row) => row.archived === 0).map((row) => [row.id, row]));
  const fallback = checkouts.find((row) => row.is_default === 1);
  const reach = new Map<string, CheckoutReach>();
  let recurringProducts = 0;
  for (const count of counts) {
    recurringProducts += count.recurring;
    const checkout = (count.checkout_id && usable.get(count.checkout_id)) || fallback;
    if (!checkout || count.one_time === 0) continue;
    const entry = reach.get(checkout.id) ?? {
      id: checkout.id,
      name: checkout.name,
      isDefault: checkout.is_default === 1,
      showsField: settingsOf(checkout).checkout_cupom_enabled,
      products: 0,
    };
    entry.products += count.one_time;
    reach.set(checkout.id, entry);
  }
  const checkoutsOfReach = [...reach.values()].sort(
    (a, b) => Number(b.isDefault) - Number(a.isDefault) || a.name.localeCompare(b.name, 'pt-BR'),
  );
  return { checkouts: checkoutsOfReach, recurringProducts };
}
