import type { Kysely } from 'kysely';
import type { Config } from '../../platform/config/config.js';
import type { Database } from '../../platform/db/schema.js';
import type { TestMailAllow } from '../../platform/config/test-mail-allow.js';
import { isStoreTeamEmail } from './store-team.js';

/**
 * How a sale's delivery e-mail is queued: the SMTP server, and for a test sale paid by an anonymous
 * visitor (the purchase page's "Simular pagamento") who may receive it.
 */
export interface DeliveryMail extends Pick<Config, 'smtp'> {
  /**
   * Set only by the purchase page's simulate action: its sale is e-mailed to the store's team and to
   * these, and to no one else. Unset (the API's `simulate_payment`, live payments): anyone.
   */
  onlyTo?: TestMailAllow;
}

/**
 * Whether an e-mail caused by an anonymous visitor in test mode may go to `recipient`: the store's
 * team, or an address or domain of STOREFRONT_TEST_MAIL_ALLOW.
 */
export async function mayMailFromTestMode(
  db: Kysely<Database>,
  storeId: string,
  recipient: string,
  allow: TestMailAllow,
): Promise<boolean> {
  const address = recipient.trim().toLowerCase();
  if (allow.addresses.has(address) || allow.domains.has(address.slice(address.lastIndexOf('@') + 1))) {
    return true;
  }
  return isStoreTeamEmail(db, storeId, address);
}

/**
 * Why a test sale an anonymous visitor paid must not e-mail `recipient`, or null when it may: the
 * purchase page of a store in test mode would otherwise send the store's e-mail to any address a
 * stranger types in.
 */
export async function strangerMailRefusal(
  db: Kysely<Database>,
  storeId: string,
  recipient: string,
  allow: TestMailAllow,
): Promise<string | null> {
  if (await mayMailFromTestMode(db, storeId, recipient, allow)) return null;
  return (
    'Not sent: this test sale was paid with "Simular pagamento" on the purchase page, so its e-mail goes ' +
    "only to the store's team and to the addresses in STOREFRONT_TEST_MAIL_ALLOW, and this customer's " +
    "address is neither. A sale paid with the API's simulate_payment, or a live sale, is e-mailed to anyone."
  );
}
