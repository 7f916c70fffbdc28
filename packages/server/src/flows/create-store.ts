import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';
import { retryOnUniqueViolation } from '../platform/db/unique-retry.js';
import { insertDefaultCheckout } from '../domain/checkouts/checkouts-repository.js';
import { insertStore } from '../domain/stores/stores.js';
import type { CheckoutMode, NewStore } from '../domain/stores/stores.js';
import type { OnWrite } from '../domain/kernel/write-context.js';

export interface CreatedStore {
  id: string;
  name: string;
  handle: string;
  checkout_mode: CheckoutMode;
  default_checkout_id: string;
}

/**
 * A store is born with its default checkout, in one transaction: it always has exactly one. A
 * generated handle that a concurrent creation took first is simply generated again. `onWrite` (its
 * audit entry) runs in the same transaction.
 */
export async function createStore(
  db: Kysely<Database>,
  input: NewStore,
  onWrite?: OnWrite<{ id: string; name: string }>,
): Promise<CreatedStore> {
  return retryOnUniqueViolation(input.handle === undefined ? 5 : 1, () =>
    db.transaction().execute(async (trx) => {
      const { id, name, handle, checkout_mode } = await insertStore(trx, input);
      const checkout = await insertDefaultCheckout(trx, id);
      await onWrite?.(trx, { id, name });
      return { id, name, handle, checkout_mode, default_checkout_id: checkout.id };
    }),
  );
}
