import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startFakePsp } from '../support/fake-psp.js';
import type { FakePsp } from '../support/fake-psp.js';
import { testPki } from '../support/test-pki.js';
import { CHAVE, FAKE_PSP_ENV } from './live-harness.js';

describe('storefront pix-provider set|show|check|register-webhook|remove (on SQLite, against the fake PSP)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-pix-provider-'));
  const env = {
    DATABASE_URL: `sqlite:${join(dir, 'cli.sqlite')}`,
    STOREFRONT_PUBLIC_URL: 'https://pagamentos.example.com',
    STOREFRONT_PSP_TIMEOUT_MS: '3000',
    ...FAKE_PSP_ENV,
  };
  const file = (name: string, content: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  let psp: FakePsp;
  let storeId: string;
  let baseArgs: string[];

  const cli = (...args: string[]) => runCli(env, ...args);

  beforeAll(async () => {
    psp = await startFakePsp({ chave: CHAVE });
    const pki = testPki();
    storeId = JSON.parse((await cli('stores', 'create', '--name', 'Loja CLI', '--json')).stdout).id;
    baseArgs = [
      'pix-provider',
      'set',
      '--store',
      storeId,
      '--base-url',
      psp.baseUrl,
      '--token-url',
      psp.tokenUrl,
      '--client-id',
      psp.clientId,
      '--client-secret-file',
      file('secret.txt', `${psp.clientSecret}\n`),
      '--ca',
      file('ca.pem', pki.ca.cert),
      '--json',
    ];
  });
  afterAll(() => psp.close());

  const pem = (name: 'client' | 'strangerClient' | 'expiredClient') => [
    '--cert',
    file(`${name}.crt`, testPki()[name].cert),
    '--key',
    file(`${name}.key`, testPki()[name].key),
  ];

  it('set refuses a store without a Pix key, a non-https URL, a key of another certificate and an expired certificate', async () => {
    const noKey = await cli(...baseArgs, ...pem('client'));
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(
      /has no Pix key: set it first with `storefront stores update .* --pix-key <chave>`/,
    );

    const updated = await cli('stores', 'update', storeId, '--pix-key', CHAVE, '--json');
    expect(JSON.parse(updated.stdout)).toMatchObject({ id: storeId, pix_key: CHAVE });

    const http = await cli(
      ...baseArgs.map((a) => (a === psp.baseUrl ? psp.baseUrl.replace('https:', 'http:') : a)),
      ...pem('client'),
    );
    expect(http.code).toBe(1);
    expect(http.stderr).toMatch(/--base-url must be https:\/\//);

    const mismatched = await cli(
      ...baseArgs,
      '--cert',
      file('mismatch.crt', testPki().client.cert),
      '--key',
      file('mismatch.key', testPki().strangerClient.key),
    );
    expect(mismatched.code).toBe(1);
    expect(mismatched.stderr).toMatch(/certificate does not match the private key/);

    const expired = await cli(...baseArgs, ...pem('expiredClient'));
    expect(expired.code).toBe(1);
    expect(expired.stderr).toMatch(/certificate expired on \d{4}-/);

    expect((await cli('pix-provider', 'show', '--store', storeId)).code).toBe(1);
  });

  it('set stores it encrypted and show prints the certificate, never a secret; check asks the PSP for the last minute', async () => {
    const set = await cli(...baseArgs, ...pem('client'));
    expect(set.code).toBe(0);
    const shown = JSON.parse((await cli('pix-provider', 'show', '--store', storeId, '--json')).stdout);
    expect(shown).toEqual({
      store_id: storeId,
      base_url: psp.baseUrl,
      token_url: psp.tokenUrl,
      client_id: psp.clientId,
      token_request: { scope: null, auth: 'basic', format: 'form', params: [] },
      certificate: {
        subject: expect.stringContaining('CN=loja-teste.example'),
        not_after: expect.stringMatching(/Z$/),
      },
      receiving_account: null,
      webhook_url: null,
      webhook_registered_at: null,
    });
    expect(JSON.parse(set.stdout)).toEqual(shown);
    expect(set.stderr).toMatch(/warning: No receiving account .*live subscriptions are refused/);
    expect(set.stdout + set.stderr).not.toContain(psp.clientSecret);
    // At rest: sealed, not readable in the database file.
    const bytes = readFileSync(join(dir, 'cli.sqlite')).toString('latin1');
    expect(bytes).not.toContain(psp.clientSecret);
    expect(bytes).not.toContain(testPki().client.key.split('\n')[1]!);

    const check = await cli('pix-provider', 'check', '--store', storeId, '--json');
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout)).toEqual({ ok: true, charges_last_minute: 0 });
    const list = psp.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v2/cob?')).at(-1)!;
    const query = new URL(list.path, 'https://x').searchParams;
    expect(Date.parse(query.get('fim')!) - Date.parse(query.get('inicio')!)).toBe(60_000);
  });

  it('set takes the receiving account: a 20-character account and a 4-digit branch; 21 characters, 5 digits, an unknown type or an account without its type are refused', async () => {
    const set = (...account: string[]) => cli(...baseArgs, ...pem('client'), ...account);
    const shownAccount = async () =>
      JSON.parse((await cli('pix-provider', 'show', '--store', storeId, '--json')).stdout).receiving_account;
    const longest = '123456789012345678-9';
    expect(longest).toHaveLength(20);
    const ok = await set('--account', longest, '--account-type', 'poupanca', '--branch', '1234');
    expect(ok.code).toBe(0);
    expect(ok.stderr).toBe('');
    const account = { branch: '1234', number: longest, type: 'poupanca' };
    expect(JSON.parse(ok.stdout).receiving_account).toEqual(account);
    expect(await shownAccount()).toEqual(account);
    const human = await cli('pix-provider', 'show', '--store', storeId);
    expect(JSON.parse(human.stdout).receiving_account).toEqual(account);

    for (const [args, message] of [
      [['--account', `1${longest}`, '--account-type', 'corrente'], /--account must be 1 to 20 characters/],
      [
        ['--account', '12345', '--account-type', 'corrente', '--branch', '12345'],
        /--branch must be 1 to 4 digits/,
      ],
      [
        ['--account', '12345', '--account-type', 'investimento'],
        /--account-type must be one of corrente, poupanca, pagamento/,
      ],
      [['--account', '12345'], /--account needs --account-type/],
      [['--account-type', 'corrente'], /--account-type needs --account/],
      [['--account', '12-34-5', '--account-type', 'corrente'], /--account must be/],
    ] as const) {
      const refused = await set(...args);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr).toMatch(message);
    }
    expect(await shownAccount()).toEqual(account);
    // Without a branch: an account that has none.
    const noBranch = await set('--account', '98765-X', '--account-type', 'pagamento');
    expect(JSON.parse(noBranch.stdout).receiving_account).toEqual({
      branch: null,
      number: '98765-X',
      type: 'pagamento',
    });
  });

  it('register-webhook puts a fresh URL at the PSP for Pix and Pix Automático, prints it once, and show masks it', async () => {
    const registered = await cli('pix-provider', 'register-webhook', '--store', storeId, '--json');
    expect(registered.stderr).toBe('');
    const first = JSON.parse(registered.stdout);
    expect(first).toEqual({ webhook_url: expect.any(String), pix_automatico: true });
    expect(first.webhook_url).toMatch(
      /^https:\/\/pagamentos\.example\.com\/callbacks\/pix\/[A-Za-z0-9_-]{43}$/,
    );
    // Three webhooks, one URL: PUT /webhook/{chave}, PUT /webhookrec, PUT /webhookcobr.
    expect(psp.webhooks.get(CHAVE)).toBe(first.webhook_url);
    expect(psp.rec.webhookRec).toBe(first.webhook_url);
    expect(psp.rec.webhookCobr).toBe(first.webhook_url);
    const puts = psp.requests.filter((r) => r.method === 'PUT' && /^\/v2\/webhook/.test(r.path)).slice(-3);
    expect(puts.map((r) => [r.path, r.body])).toEqual([
      [`/v2/webhook/${encodeURIComponent(CHAVE)}`, { webhookUrl: first.webhook_url }],
      ['/v2/webhookrec', { webhookUrl: first.webhook_url }],
      ['/v2/webhookcobr', { webhookUrl: first.webhook_url }],
    ]);
    const shown = JSON.parse((await cli('pix-provider', 'show', '--store', storeId, '--json')).stdout);
    const token = first.webhook_url.split('/').pop();
    expect(shown.webhook_url).toBe(`https://pagamentos.example.com/callbacks/pix/${token.slice(0, 4)}…`);
    expect(Date.parse(shown.webhook_registered_at)).not.toBeNaN();

    const second = JSON.parse(
      (await cli('pix-provider', 'register-webhook', '--store', storeId, '--json')).stdout,
    );
    expect(second.webhook_url).not.toBe(first.webhook_url);
    expect(psp.webhooks.get(CHAVE)).toBe(second.webhook_url);
    expect(psp.rec.webhookRec).toBe(second.webhook_url);
  });

  it('register-webhook at a PSP without Pix Automático (404) still registers the Pix webhook, and warns', async () => {
    psp.rec.offersPixAutomatico = false;
    try {
      const previousRec = psp.rec.webhookRec;
      const res = await cli('pix-provider', 'register-webhook', '--store', storeId, '--json');
      expect(res.code).toBe(0);
      const out = JSON.parse(res.stdout);
      expect(out).toEqual({ webhook_url: expect.any(String), pix_automatico: false });
      expect(psp.webhooks.get(CHAVE)).toBe(out.webhook_url);
      expect(psp.rec.webhookRec).toBe(previousRec);
      expect(res.stderr).toMatch(
        /warning: The PSP does not offer Pix Automático .*plain Pix charges are registered/,
      );
      const shown = JSON.parse((await cli('pix-provider', 'show', '--store', storeId, '--json')).stdout);
      expect(shown.webhook_url).toBe(`${out.webhook_url.slice(0, -39)}…`);

      const human = await cli('pix-provider', 'register-webhook', '--store', storeId);
      expect(human.code).toBe(0);
      expect(human.stdout).toMatch(/^Registered https:\/\/\S+ \(shown once\) for Pix\.$/m);
    } finally {
      psp.rec.offersPixAutomatico = true;
    }
  });

  it('a PKCS#12 identity with its passphrase file works; a wrong passphrase is refused', async () => {
    const pki = testPki();
    const pfx = ['--pfx', file('client.p12', pki.clientPfx)];
    const wrong = await cli(...baseArgs, ...pfx, '--passphrase-file', file('wrong.txt', 'errada\n'));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/PKCS#12 file cannot be opened/);
    const ok = await cli(
      ...baseArgs,
      ...pfx,
      '--passphrase-file',
      file('pass.txt', `${pki.pfxPassphrase}\n`),
    );
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).certificate.subject).toContain('CN=loja-teste.example');
    expect((await cli('pix-provider', 'check', '--store', storeId)).code).toBe(0);
  });

  it('check fails with the PSP’s problem when the credentials are wrong; remove deletes the settings', async () => {
    const wrongSecret = baseArgs.map((a) =>
      a.endsWith('secret.txt') ? file('wrong-secret.txt', 'nope') : a,
    );
    expect((await cli(...wrongSecret, ...pem('client'))).code).toBe(0);
    const check = await cli('pix-provider', 'check', '--store', storeId);
    expect(check.code).toBe(1);
    expect(check.stderr).toMatch(/refused our credentials.*401 AcessoNegado/);

    const removed = await cli('pix-provider', 'remove', '--store', storeId, '--json');
    expect(JSON.parse(removed.stdout)).toEqual({ store_id: storeId, removed: true });
    expect((await cli('pix-provider', 'show', '--store', storeId)).code).toBe(1);
    expect((await cli('pix-provider', 'remove', '--store', storeId)).code).toBe(1);
  });
});
