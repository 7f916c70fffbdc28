import type { Config } from '../../platform/config/config.js';
import { SecretBoxError, createSecretBox } from '../../platform/values/secret-box.js';
import type { SecretBox } from '../../platform/values/secret-box.js';
import type { Order, OrdersTable } from './order-object.js';

/** What order events and the recovery e-mail need to link to an order's page. */
export type OrderLinkConfig = Pick<Config, 'secret' | 'publicUrl'>;

/** The order page's path for a token (relative: the page's own answers use it as is). */
export const orderPath = (token: string) => `/p/o/${token}`;

const boxes = new Map<string, SecretBox>();
function boxFor(secret: string): SecretBox {
  let box = boxes.get(secret);
  if (!box) boxes.set(secret, (box = createSecretBox(secret)));
  return box;
}

/** The token sealed to its order (the order id is the associated data: it opens on no other row). */
export const sealOrderToken = (config: OrderLinkConfig, orderId: string, token: string) =>
  boxFor(config.secret).seal(token, orderId);

/** The absolute URL of the order page of a token in hand (a new order's: no need to open it again). */
export const orderUrlOf = (config: OrderLinkConfig, token: string) =>
  new URL(orderPath(token), config.publicUrl).href;

/**
 * The absolute URL of the order's page on STOREFRONT_PUBLIC_URL, where the buyer pays (or renews an
 * expired Pix); null for an order placed before links were kept, or sealed under a STOREFRONT_SECRET
 * since replaced (its link is lost; the order itself is not).
 */
export function orderUrl(
  config: OrderLinkConfig,
  row: Pick<OrdersTable, 'id' | 'token_sealed'>,
): string | null {
  if (row.token_sealed === null) return null;
  try {
    return orderUrlOf(config, boxFor(config.secret).open(row.token_sealed, row.id));
  } catch (error) {
    if (error instanceof SecretBoxError) return null;
    throw error;
  }
}

/** An order event's object: the order as the API returns it, and the link a store can send on. */
export type OrderEventObject = Order & { order_url: string | null };
