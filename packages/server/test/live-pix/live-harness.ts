import { afterAll, beforeAll } from 'vitest';
import { registerWebhook } from '../../src/domain/payments/api-pix/provider-admin.js';
import { saveProviderSettings } from '../../src/domain/payments/api-pix/provider-settings.js';
import { startPixReconciler } from '../../src/flows/reconcile-live-pix.js';
import type { Reconciler, ReconcilerOptions } from '../../src/flows/reconcile-live-pix.js';
import type { ReceivingAccountInput } from '../../src/domain/payments/api-pix/receiving-account.js';
import { createSecretBox } from '../../src/platform/values/secret-box.js';
import { createStore } from '../../src/flows/create-store.js';
import { startFakePsp } from '../support/fake-psp.js';
import type { FakePsp } from '../support/fake-psp.js';
import { RECEBEDOR_CONTA } from '../support/fake-psp-rec.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi, TestApiOptions } from '../support/test-api.js';
import { testPki } from '../support/test-pki.js';
import { silentLog } from '../webhooks/delivery-harness.js';

/** A reconciler on the test database, quiet, with a 10 s lease; `overrides` change the rest. */
export function startTestReconciler(
  api: TestApi,
  overrides: Partial<Omit<ReconcilerOptions, 'db' | 'payments' | 'mail'>> = {},
): Reconciler {
  return startPixReconciler({
    db: api.db,
    payments: api.payments,
    log: silentLog,
    scheduleMs: api.config.pixReconcileScheduleMs,
    leaseMs: 10_000,
    mail: api.config,
    ...overrides,
  });
}

/**
 * The fake PSP listens on 127.0.0.1, which the outbound address policy refuses: the live suites run
 * with it as the operator's exception, STOREFRONT_PSP_ALLOWED_HOSTS (the policy's own test runs without).
 */
export const FAKE_PSP_ALLOWED_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1']);
export const FAKE_PSP_ENV = { STOREFRONT_PSP_ALLOWED_HOSTS: '127.0.0.1' } as const;

/** describeEachDatabase for suites that talk to the fake PSP: its address allowed, then `options`. */
export function describeLivePix(
  title: string,
  suite: (api: TestApi) => void,
  options: TestApiOptions = {},
): void {
  describeEachDatabase(title, suite, {
    ...options,
    config: { ...options.config, pspAllowedHosts: FAKE_PSP_ALLOWED_HOSTS },
  });
}

/** The store's Pix key at the fake PSP (a random key, EVP). */
export const CHAVE = '2f6c1a0e-6a7d-4c1b-9a43-5be1f0a7c9d2';

/** The payee's account at the fake PSP, as `pix-provider set` takes it. */
export const PSP_ACCOUNT: ReceivingAccountInput = {
  account: RECEBEDOR_CONTA.conta,
  accountType: 'corrente',
  branch: RECEBEDOR_CONTA.agencia,
};

export interface LiveStore {
  storeId: string;
  /** A live key with every scope. */
  key: string;
  testKey: string;
}

/**
 * For a suite: a fake PSP over mTLS and a reconciler (the worker's live Pix half) polling quickly.
 * `liveStore()` makes a store configured the way `pix-provider set` and `register-webhook` do it,
 * with the fake PSP's receiving account and the callback URL pointing at the test server.
 */
export function useLivePix(api: TestApi, options: { reconcilerPollMs?: number } = {}) {
  let psp: FakePsp | undefined;
  let reconciler: Reconciler | undefined;
  beforeAll(async () => {
    psp = await startFakePsp({ chave: CHAVE });
    reconciler = startTestReconciler(api, { pollIntervalMs: options.reconcilerPollMs ?? 50 });
  });
  afterAll(async () => {
    await reconciler?.stop();
    await psp?.close();
  });

  async function liveStore(
    options: {
      identity?: 'pem' | 'pfx';
      clientCert?: { cert: string; key: string };
      /** The receiving account set with the provider; `{}` sets none. */
      account?: ReceivingAccountInput;
    } = {},
  ): Promise<LiveStore> {
    const pki = testPki();
    const { identity = 'pem', clientCert = pki.client, account = PSP_ACCOUNT } = options;
    const store = await createStore(api.db, { name: 'Loja Ao Vivo', pixKey: CHAVE });
    await saveProviderSettings(api.db, createSecretBox(api.config.secret), {
      storeId: store.id,
      baseUrl: psp!.baseUrl,
      clientId: psp!.clientId,
      clientSecret: psp!.clientSecret,
      tokenUrl: psp!.tokenUrl,
      identity:
        identity === 'pfx'
          ? { pfx: pki.clientPfx, passphrase: pki.pfxPassphrase }
          : { certPem: clientCert.cert, keyPem: clientCert.key },
      caPem: pki.ca.cert,
      account,
    });
    // A client the PSP refuses cannot register anything: such a store goes without a webhook.
    if (clientCert === pki.client) await registerWebhook(api.db, api.payments, store.id, api.baseUrl);
    return {
      storeId: store.id,
      key: await api.createKey(store.id, undefined, 'live'),
      testKey: await api.createKey(store.id, undefined, 'test'),
    };
  }

  return { psp: () => psp!, reconciler: () => reconciler!, liveStore };
}
