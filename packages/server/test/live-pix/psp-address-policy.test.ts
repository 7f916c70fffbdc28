import { beforeAll, describe, expect, it } from 'vitest';
import { apiPixClient } from '../../src/domain/payments/api-pix/api-pix-client.js';
import { createApiPixTransport } from '../../src/domain/payments/api-pix/api-pix-transport.js';
import { saveProviderSettings } from '../../src/domain/payments/api-pix/provider-settings.js';
import { STANDARD_TOKEN_REQUEST } from '../../src/domain/payments/api-pix/token-request.js';
import { ProviderError } from '../../src/domain/payments/provider-errors.js';
import { createStore } from '../../src/flows/create-store.js';
import { loadConfig } from '../../src/platform/config/config.js';
import { parseAllowedEndpoints } from '../../src/platform/outbound/url-policy.js';
import { createSecretBox } from '../../src/platform/values/secret-box.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import { testPki } from '../support/test-pki.js';
import { CHAVE, PSP_ACCOUNT, useLivePix } from './live-harness.js';

/**
 * A store's owner chooses its PSP's URLs, so every connection to them (API calls and the token
 * request, over the store's mTLS identity) must reach a public address unless the operator allowed
 * the endpoint in STOREFRONT_PSP_ALLOWED_HOSTS. This suite runs without that exception.
 */
describeEachDatabase('live Pix: owner-set PSP URLs meet the outbound address policy', (api) => {
  const live = useLivePix(api);
  const pki = testPki();
  let liveKey: string;
  let storeId: string;

  beforeAll(async () => {
    const store = await createStore(api.db, { name: 'Loja Hostil', pixKey: CHAVE });
    storeId = store.id;
    liveKey = await api.createKey(store.id, undefined, 'live');
  });

  async function pointAt(baseUrl: string) {
    await saveProviderSettings(api.db, createSecretBox(api.config.secret), {
      storeId,
      baseUrl,
      tokenUrl: `${new URL(baseUrl).origin}/oauth/token`,
      clientId: live.psp().clientId,
      clientSecret: live.psp().clientSecret,
      identity: { certPem: pki.client.cert, keyPem: pki.client.key },
      caPem: pki.ca.cert,
      account: PSP_ACCOUNT,
    });
  }

  it.each([
    ['https://127.0.0.1:{port}/v2'],
    ['https://localhost:{port}/v2'],
    ['https://[::1]:{port}/v2'],
    ['https://10.1.2.3/v2'],
    ['https://169.254.169.254/v2'],
    ['https://[fe80::1]/v2'],
  ])('a live charge at %s is refused before connecting (502 provider_error, nothing sent)', async (url) => {
    const psp = live.psp();
    await pointAt(url.replace('{port}', new URL(psp.baseUrl).port));
    const before = { requests: psp.requests.length, tokens: psp.tokensIssued };
    const error = expectError(
      await api.as(liveKey).post('/payments/pix', { amount: 12.34 }),
      502,
      'provider_error',
    );
    expect(error.message).toMatch(/EBLOCKEDADDRESS/);
    expect({ requests: psp.requests.length, tokens: psp.tokensIssued }).toEqual(before);
    expect(
      await api.db.selectFrom('pix_charges').select('id').where('store_id', '=', storeId).execute(),
    ).toEqual([]);
  });
});

describeEachDatabase('live Pix: STOREFRONT_PSP_ALLOWED_HOSTS exempts the named endpoint only', (api) => {
  const live = useLivePix(api);
  const pki = testPki();

  async function checkWith(allowed: string): Promise<unknown> {
    const psp = live.psp();
    const endpoints = parseAllowedEndpoints(allowed);
    if ('invalid' in endpoints) throw new Error(endpoints.invalid);
    const client = apiPixClient(
      createApiPixTransport(
        {
          baseUrl: psp.baseUrl,
          tokenUrl: psp.tokenUrl,
          clientId: psp.clientId,
          clientSecret: psp.clientSecret,
          tokenRequest: STANDARD_TOKEN_REQUEST,
          tls: { cert: pki.client.cert, key: pki.client.key },
          ca: pki.ca.cert,
        },
        { connectTimeoutMs: 3000, requestTimeoutMs: 5000, allowedHosts: endpoints },
      ),
    );
    try {
      return await client.listCobs(new Date(Date.now() - 60_000).toISOString(), new Date().toISOString());
    } catch (error) {
      return error;
    } finally {
      await client.close();
    }
  }

  it('host:port allows that port, a bare host every port; another port or host is refused', async () => {
    const port = new URL(live.psp().baseUrl).port;
    expect(await checkWith(`127.0.0.1:${port}`)).toMatchObject({ cobs: [] });
    expect(await checkWith('127.0.0.1')).toMatchObject({ cobs: [] });
    for (const other of [`127.0.0.1:${Number(port) + 1}`, 'localhost', `127.0.0.2:${port}`, '']) {
      const refused = await checkWith(other);
      expect(refused, other).toBeInstanceOf(ProviderError);
      expect((refused as ProviderError).blockedAddress, other).toBe(true);
    }
  });
});

describe('STOREFRONT_PSP_ALLOWED_HOSTS', () => {
  const env = { DATABASE_URL: 'sqlite::memory:', STOREFRONT_SECRET: 'x'.repeat(32) };

  it('is empty by default and takes host or host:port entries, IPv6 in brackets', () => {
    expect(loadConfig(env).pspAllowedHosts.size).toBe(0);
    const allowed = loadConfig({
      ...env,
      STOREFRONT_PSP_ALLOWED_HOSTS: ' Sandbox.PSP.example. , 10.0.0.5:8443,[fd00::5]:443, [::1] ',
    }).pspAllowedHosts;
    expect([...allowed]).toEqual(['sandbox.psp.example', '10.0.0.5 8443', 'fd00::5 443', '::1']);
  });

  it.each(['10.0.0.5:0', '10.0.0.5:70000', 'psp.example:x', '[not-ipv6]:443', 'a/b'])(
    'refuses %s at start',
    (value) => {
      expect(() => loadConfig({ ...env, STOREFRONT_PSP_ALLOWED_HOSTS: value })).toThrow(
        /STOREFRONT_PSP_ALLOWED_HOSTS: must be a comma list of host or host:port/,
      );
    },
  );
});
