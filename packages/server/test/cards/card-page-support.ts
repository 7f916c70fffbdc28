import { saveCardProviderSettings } from '../../src/domain/payments/card-settings/card-provider-settings.js';
import { hashOrderToken } from '../../src/domain/orders/order-object.js';
import { createSecretBox } from '../../src/platform/values/secret-box.js';
import { TEST_SECRET } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { placeOrder } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';

/** A card order from the shop's page: the test token, the installments, the rest as a buyer sends it. */
export function placeCardOrder(
  api: TestApi,
  shop: Shop,
  token: string,
  installments = 1,
  body: Record<string, unknown> = {},
) {
  return placeOrder(api, shop, { payment_method: 'card', card: { token, installments }, ...body });
}

/** The order's row (its card payment and Pix), through the database. */
export function orderRow(api: TestApi, token: string) {
  return api.db
    .selectFrom('orders')
    .selectAll()
    .where('token_hash', '=', hashOrderToken(token))
    .executeTakeFirstOrThrow();
}

/** Gives the store a card PSP for a mode, as `storefront card-provider set` does (no call is made). */
export async function setCardProvider(
  api: TestApi,
  storeId: string,
  provider: 'mercadopago' | 'pagarme',
  livemode: boolean,
): Promise<void> {
  const mode = livemode ? 'live' : 'test';
  const credentials =
    provider === 'mercadopago'
      ? {
          secret: `${livemode ? 'APP_USR-' : 'TEST-'}1234567890-secret`,
          publicKey: `${livemode ? 'APP_USR-' : 'TEST-'}public-${mode}-key`,
          webhookSecret: null,
        }
      : {
          secret: `${livemode ? 'sk_' : 'sk_test_'}secretkey0123456789`,
          publicKey: `${livemode ? 'pk_' : 'pk_test_'}publickey0123456789`,
          webhookSecret: null,
        };
  await saveCardProviderSettings(api.db, createSecretBox(TEST_SECRET), {
    storeId,
    livemode,
    provider,
    ...credentials,
  });
}
