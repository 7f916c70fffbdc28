import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { findCardProviderByCallbackToken } from '../../src/domain/payments/card-settings/card-provider-settings.js';
import { createSecretBox } from '../../src/platform/values/secret-box.js';
import { auditRecords } from '../support/audit-records.js';
import { runCli } from '../support/cli.js';
import { startFakeMercadoPago } from '../support/fake-mercadopago.js';
import type { FakeMercadoPago } from '../support/fake-mercadopago.js';
import { describeEachDatabase, TEST_SECRET } from '../support/test-api.js';

const PUBLIC_URL = 'https://pagamentos.example.com';
const MP_TEST_TOKEN = 'TEST-4321098765432109-112820-0123456789abcdef0123456789abcdef-123456789';
const MP_TEST_PUBLIC = 'TEST-0a1b2c3d-4e5f-6789-abcd-ef0123456789';
const PAGARME_LIVE_SECRET = 'sk_a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
const PAGARME_LIVE_PUBLIC = 'pk_a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';

describeEachDatabase('storefront card-provider set|show|check|remove', (api) => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-card-provider-'));
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  const env = () => ({
    DATABASE_URL: api.database.url,
    STOREFRONT_SECRET: TEST_SECRET,
    STOREFRONT_PUBLIC_URL: PUBLIC_URL,
    STOREFRONT_PSP_ALLOWED_HOSTS: '127.0.0.1',
    STOREFRONT_PSP_TIMEOUT_MS: '3000',
    ...api.database.env,
  });
  const cli = (...args: string[]) => runCli(env(), ...args);
  let mp: FakeMercadoPago;
  let storeId: string;

  beforeAll(async () => {
    mp = await startFakeMercadoPago({ accessToken: MP_TEST_TOKEN, publicKey: MP_TEST_PUBLIC });
    ({ storeId } = await api.createStore({ name: 'Loja Cartão' }));
  });
  afterAll(() => mp.close());

  const mpSet = (mode: string, token: string, publicKey: string, ...more: string[]) =>
    cli(
      'card-provider',
      'set',
      '--store',
      storeId,
      '--mode',
      mode,
      '--provider',
      'mercadopago',
      '--access-token-file',
      file('mp-token.txt', `${token}\n`),
      '--public-key',
      publicKey,
      ...more,
    );
  const pagarmeSet = (mode: string, secret: string, publicKey: string, ...more: string[]) =>
    cli(
      'card-provider',
      'set',
      '--store',
      storeId,
      '--mode',
      mode,
      '--provider',
      'pagarme',
      '--secret-key-file',
      file('pagarme-secret.txt', secret),
      '--public-key',
      publicKey,
      ...more,
    );
  const rows = () =>
    api.db.selectFrom('card_providers').selectAll().where('store_id', '=', storeId).execute();

  it('set refuses credentials whose prefix names the other mode, both ways, for both PSPs, naming the option', async () => {
    const refusals: [() => Promise<{ code: number; stderr: string }>, RegExp][] = [
      [
        () => mpSet('live', MP_TEST_TOKEN, 'APP_USR-0a1b'),
        /--access-token-file is a test credential .*--mode is live/,
      ],
      [
        () => mpSet('test', 'APP_USR-123-abc', MP_TEST_PUBLIC),
        /--access-token-file is a live credential .*--mode is test/,
      ],
      [
        () => mpSet('live', 'APP_USR-123-abc', MP_TEST_PUBLIC),
        /--public-key is a test credential .*--mode is live/,
      ],
      [
        () => mpSet('test', MP_TEST_TOKEN, 'APP_USR-0a1b'),
        /--public-key is a live credential .*--mode is test/,
      ],
      [
        () => mpSet('test', 'Bearer abc', MP_TEST_PUBLIC),
        /--access-token-file is not a mercadopago credential/,
      ],
      [
        () => pagarmeSet('live', 'sk_test_abc', PAGARME_LIVE_PUBLIC),
        /--secret-key-file is a test credential .*--mode is live/,
      ],
      [
        () => pagarmeSet('test', PAGARME_LIVE_SECRET, 'pk_test_abc'),
        /--secret-key-file is a live credential/,
      ],
      [() => pagarmeSet('live', PAGARME_LIVE_SECRET, 'pk_test_abc'), /--public-key is a test credential/],
      [() => pagarmeSet('test', 'sk_test_abc', PAGARME_LIVE_PUBLIC), /--public-key is a live credential/],
      // A secret key given as the public key would be printed on the purchase page.
      [
        () => pagarmeSet('live', PAGARME_LIVE_SECRET, PAGARME_LIVE_SECRET),
        /--public-key is not a pagarme credential/,
      ],
      [
        () =>
          pagarmeSet(
            'live',
            PAGARME_LIVE_SECRET,
            PAGARME_LIVE_PUBLIC,
            '--base-url',
            'http://api.pagar.me/core/v5',
          ),
        /--base-url must be https:\/\//,
      ],
      [
        () =>
          pagarmeSet(
            'live',
            PAGARME_LIVE_SECRET,
            PAGARME_LIVE_PUBLIC,
            '--webhook-secret-file',
            file('w.txt', 'x'),
          ),
        /--webhook-secret-file is for Mercado Pago only/,
      ],
      [
        () => mpSet('test', MP_TEST_TOKEN, MP_TEST_PUBLIC, '--ca', file('not.pem', 'hello')),
        /--ca is not a PEM/,
      ],
    ];
    for (const [run, message] of refusals) {
      // One at a time: each writes the secret file the command reads.
      const result = await run();
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toContain(MP_TEST_TOKEN);
      expect(result.stderr).not.toContain(PAGARME_LIVE_SECRET);
    }
    const missing = await cli('card-provider', 'set', '--store', storeId, '--provider', 'pagarme');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/--mode/);
    expect(await rows()).toEqual([]);
    const shown = await cli('card-provider', 'show', '--store', storeId, '--mode', 'test');
    expect(shown.code).toBe(1);
    expect(shown.stderr).toMatch(/has no test card provider \(test mode uses the simulated provider\)/);
  });

  it('Mercado Pago in test mode: set prints the notification URL, secrets are sealed and never printed, check reads through the fake', async () => {
    const set = await mpSet(
      'test',
      mp.accessToken,
      mp.publicKey,
      '--webhook-secret-file',
      file('mp-webhook.txt', mp.webhookSecret),
      '--base-url',
      mp.baseUrl,
      '--ca',
      file('ca.pem', mp.caPem),
      '--json',
    );
    expect(set.code, set.stderr).toBe(0);
    const shown = JSON.parse(
      (await cli('card-provider', 'show', '--store', storeId, '--mode', 'test', '--json')).stdout,
    );
    expect(shown).toEqual({
      store_id: storeId,
      mode: 'test',
      provider: 'mercadopago',
      public_key: mp.publicKey,
      base_url: mp.baseUrl,
      webhook_url: expect.stringMatching(
        /^https:\/\/pagamentos\.example\.com\/callbacks\/card\/[A-Za-z0-9_-]{43}$/,
      ),
    });
    expect(JSON.parse(set.stdout)).toEqual(shown);
    const human = await mpSet(
      'test',
      mp.accessToken,
      mp.publicKey,
      '--base-url',
      mp.baseUrl,
      '--ca',
      file('ca.pem', mp.caPem),
    );
    expect(human.stdout).toContain(
      `Notification URL (paste it into the PSP's webhook settings): ${shown.webhook_url}`,
    );
    // Replacing the settings keeps the URL the seller pasted into the PSP's panel.
    const again = JSON.parse(
      (await cli('card-provider', 'show', '--store', storeId, '--mode', 'test', '--json')).stdout,
    );
    expect(again.webhook_url).toBe(shown.webhook_url);
    const text = await cli('card-provider', 'show', '--store', storeId, '--mode', 'test');
    for (const output of [set, human, text]) {
      expect(output.stdout + output.stderr).not.toContain(mp.accessToken);
      expect(output.stdout + output.stderr).not.toContain(mp.webhookSecret);
    }

    // At rest: sealed to its row; the raw row holds neither secret nor the token.
    const [row] = await rows();
    const token = shown.webhook_url.split('/').at(-1);
    expect(JSON.stringify(row)).not.toContain(mp.accessToken);
    expect(JSON.stringify(row)).not.toContain(token);
    const box = createSecretBox(TEST_SECRET);
    expect(box.open(row!.secret_sealed, `card_providers:${storeId}:test:secret`)).toBe(mp.accessToken);
    expect(() => box.open(row!.secret_sealed, `card_providers:${storeId}:live:secret`)).toThrow();

    expect(await findCardProviderByCallbackToken(api.db, token)).toEqual({
      storeId,
      livemode: false,
      provider: 'mercadopago',
    });
    // One character changed (a token may itself end in 'A'): no store has that token.
    const altered = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    expect(await findCardProviderByCallbackToken(api.db, altered)).toBeUndefined();

    const check = await cli('card-provider', 'check', '--store', storeId, '--mode', 'test', '--json');
    expect(check.code, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout)).toEqual({
      ok: true,
      store_id: storeId,
      mode: 'test',
      provider: 'mercadopago',
    });
    const read = mp.requests.at(-1)!;
    expect(read).toMatchObject({ method: 'GET', authorization: `Bearer ${mp.accessToken}` });
    expect(read.path).toMatch(/^\/v1\/payment_methods\/installments/);

    const audit = await auditRecords(api, storeId, 'card_provider');
    expect(audit.at(-1)).toMatchObject({
      action: 'card_provider_changed',
      actor_kind: 'cli',
      detail: `Mercado Pago (teste): ${mp.baseUrl}, chave pública ${mp.publicKey}`,
    });
    expect(JSON.stringify(audit)).not.toContain(mp.accessToken);
  });

  it('check fails with what the PSP answered when it refuses the token, never printing it', async () => {
    const wrong = 'TEST-9999999999999999-112820-ffffffffffffffffffffffffffffffff-999999999';
    expect(
      (await mpSet('test', wrong, mp.publicKey, '--base-url', mp.baseUrl, '--ca', file('ca.pem', mp.caPem)))
        .code,
    ).toBe(0);
    const check = await cli('card-provider', 'check', '--store', storeId, '--mode', 'test');
    expect(check.code).toBe(1);
    expect(check.stderr).toMatch(/Mercado Pago answered GET .* with 401/);
    expect(check.stdout + check.stderr).not.toContain(wrong);
  });

  it('Pagar.me in live mode: the documented base URL by default, its own callback token; check and remove', async () => {
    const set = await pagarmeSet('live', PAGARME_LIVE_SECRET, PAGARME_LIVE_PUBLIC, '--json');
    expect(set.code, set.stderr).toBe(0);
    const shown = JSON.parse(set.stdout);
    expect(shown).toMatchObject({
      store_id: storeId,
      mode: 'live',
      provider: 'pagarme',
      public_key: PAGARME_LIVE_PUBLIC,
      base_url: 'https://api.pagar.me/core/v5',
    });
    expect(set.stdout).not.toContain(PAGARME_LIVE_SECRET);
    const test = JSON.parse(
      (await cli('card-provider', 'show', '--store', storeId, '--mode', 'test', '--json')).stdout,
    );
    expect(shown.webhook_url).not.toBe(test.webhook_url);
    expect(await findCardProviderByCallbackToken(api.db, shown.webhook_url.split('/').at(-1))).toEqual({
      storeId,
      livemode: true,
      provider: 'pagarme',
    });

    // Pointed at a PSP that refuses its key (the Mercado Pago fake answers 401 to Basic auth).
    await pagarmeSet(
      'live',
      PAGARME_LIVE_SECRET,
      PAGARME_LIVE_PUBLIC,
      '--base-url',
      mp.baseUrl,
      '--ca',
      file('ca.pem', mp.caPem),
    );
    const check = await cli('card-provider', 'check', '--store', storeId, '--mode', 'live');
    expect(check.code).toBe(1);
    expect(check.stderr).toMatch(/Pagar\.me answered GET \/orders\/\S+ with 401/);
    expect(check.stderr).not.toContain(PAGARME_LIVE_SECRET);

    const removed = await cli('card-provider', 'remove', '--store', storeId, '--mode', 'live', '--json');
    expect(JSON.parse(removed.stdout)).toEqual({ store_id: storeId, mode: 'live', removed: true });
    expect((await cli('card-provider', 'show', '--store', storeId, '--mode', 'live')).code).toBe(1);
    const twice = await cli('card-provider', 'remove', '--store', storeId, '--mode', 'live');
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/has no live card provider/);
    const noCheck = await cli('card-provider', 'check', '--store', storeId, '--mode', 'live');
    expect(noCheck.stderr).toMatch(/has no live card provider/);
    expect((await rows()).map((row) => row.livemode)).toEqual([0]);
    expect((await auditRecords(api, storeId, 'card_provider')).at(-1)).toMatchObject({
      actor_kind: 'cli',
      detail: 'produção: removidas',
    });
  });
});
