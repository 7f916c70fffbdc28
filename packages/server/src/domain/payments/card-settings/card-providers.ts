import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { createSecretBox } from '../../../platform/values/secret-box.js';
import type { SecretBox } from '../../../platform/values/secret-box.js';
import type { CardProvider } from '../card-provider.js';
import { mercadoPagoProvider } from '../mercadopago/mercadopago-provider.js';
import { pagarmeProvider } from '../pagarme/pagarme-provider.js';
import type { ProviderScope } from '../payment-providers.js';
import { cardNotConfigured } from '../provider-errors.js';
import { simulatedCardProvider } from '../simulated/simulated-card-provider.js';
import { storeProviders } from '../store-providers.js';
import {
  cardNotificationUrl,
  cardSecretsOf,
  findCardProviderSettings,
  modeName,
} from './card-provider-settings.js';
import type { CardProvidersTable } from './card-provider-settings.js';

export interface CardProvidersOptions {
  /** STOREFRONT_SECRET, which seals the credentials at rest. */
  secret: string;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
  /** STOREFRONT_PSP_ALLOWED_HOSTS: PSP endpoints exempt from the public-address rule. */
  allowedHosts: ReadonlySet<string>;
  /** STOREFRONT_PUBLIC_URL: where the PSP sends its notifications (`/callbacks/card/<token>`). */
  publicUrl: string;
}

export interface CardProviders {
  /**
   * The card provider of a store in a mode: its own PSP when one is set; otherwise the simulated
   * provider in test mode, and 400 provider_not_configured in live mode.
   */
  forScope(scope: ProviderScope): Promise<CardProvider>;
  close(): Promise<void>;
}

function build(box: SecretBox, row: CardProvidersTable, options: CardProvidersOptions): CardProvider {
  const { secret, webhookSecret } = cardSecretsOf(box, row);
  const connection = {
    publicKey: row.public_key,
    baseUrl: row.base_url,
    caPem: row.ca_pem,
    connectTimeoutMs: options.connectTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs,
    allowedHosts: options.allowedHosts,
  };
  const provider =
    row.provider === 'mercadopago'
      ? mercadoPagoProvider({ ...connection, accessToken: secret, webhookSecret })
      : pagarmeProvider({ ...connection, secretKey: secret });
  // Mercado Pago is told it with each payment; a Pagar.me seller pastes it into their panel.
  return { ...provider, notificationUrl: cardNotificationUrl(box, row, options.publicUrl) };
}

/**
 * Each store's card provider per mode, kept with its connections while its settings stay the same
 * (`card-provider set` or the dashboard's form changes `updated_at`, which builds a new one).
 */
export function cardProviders(db: Kysely<Database>, options: CardProvidersOptions): CardProviders {
  const box = createSecretBox(options.secret);
  // Keyed by store and mode: a store's test and live PSPs are two providers.
  const cache = storeProviders<CardProvider>(async (key) => {
    const [storeId, mode] = key.split(' ') as [string, string];
    const livemode = mode === modeName(true);
    const row = await findCardProviderSettings(db, storeId, livemode);
    if (row) return { version: `${row.provider}|${row.updated_at}`, build: () => build(box, row, options) };
    if (livemode) throw cardNotConfigured();
    return { version: 'simulated', build: () => simulatedCardProvider };
  });
  return {
    forScope: (scope) => cache.forStore(`${scope.storeId} ${modeName(scope.livemode)}`),
    close: () => cache.close(),
  };
}
