import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createStore } from '../../src/flows/create-store.js';
import { runCli } from '../support/cli.js';
import { startFakePsp } from '../support/fake-psp.js';
import type { FakePsp, FakeTokenEndpoint } from '../support/fake-psp.js';
import { describeEachDatabase, TEST_SECRET } from '../support/test-api.js';
import { testPki } from '../support/test-pki.js';
import { scaled } from '../support/time-scale.js';
import { CHAVE, FAKE_PSP_ENV } from './live-harness.js';

/**
 * The token request shapes of real PSPs (the recipes of docs/live-pix.md), each against a fake PSP
 * that requires it and refuses the standard Basic + form request. Options are given to the real
 * CLI, and `pix-provider check` gets a token and lists charges through the transport.
 */
/** Each test runs the CLI several times and the PSP's mTLS handshakes, on a machine that may be busy. */
const CLI_TIMEOUT = scaled(60_000);

const RECIPES: {
  psp: string;
  requires: FakeTokenEndpoint;
  options: string[];
  /** What the PSP answers the standard request, as `check` shows it. */
  refused: RegExp;
  secret?: false;
}[] = [
  {
    psp: 'Efí',
    requires: { format: 'json' },
    options: ['--token-format', 'json'],
    refused: /400 invalid_request: "O corpo deve ser JSON\."/,
  },
  {
    psp: 'Inter',
    requires: { auth: 'body', scope: 'cob.write cob.read pix.read webhook.write' },
    options: [
      '--token-auth',
      'body',
      '--scope',
      'cob.write cob.read pix.write pix.read webhook.write webhook.read',
    ],
    refused: /400 invalid_request: "Credenciais devem ir no corpo\."/,
  },
  {
    psp: 'Banco do Brasil',
    requires: { scope: 'cob.write cob.read pix.read' },
    options: ['--scope', 'cob.write cob.read pix.write pix.read webhook.write webhook.read'],
    refused: /400 invalid_scope: "Escopo ausente: cob\.write cob\.read pix\.read\."/,
  },
  {
    psp: 'Sicoob',
    requires: { auth: 'body', secret: false, scope: 'cob.write cob.read' },
    options: [
      '--token-auth',
      'body',
      '--scope',
      'cob.read cob.write pix.read pix.write webhook.read webhook.write',
    ],
    refused: /400 invalid_request: "Credenciais devem ir no corpo\."/,
    secret: false,
  },
  {
    psp: 'Sicredi',
    requires: { scope: 'cob.write cob.read webhook.write' },
    options: ['--scope', 'cob.write cob.read pix.write pix.read webhook.read webhook.write'],
    refused: /400 invalid_scope: "Escopo ausente: cob\.write cob\.read webhook\.write\."/,
  },
  {
    psp: 'a PSP wanting an extra parameter',
    requires: { params: { audience: 'pix-api' } },
    options: ['--token-param', 'audience=pix-api'],
    refused: /400 invalid_request: "Parâmetro audience ausente ou inválido\."/,
  },
];

describeEachDatabase(
  'the PSP token request shape (pix-provider set --scope --token-auth --token-format --token-param)',
  (api) => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-token-shape-'));
    const file = (name: string, content: string) => {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    };
    const cli = (...args: string[]) =>
      runCli(
        {
          DATABASE_URL: api.database.url,
          STOREFRONT_SECRET: TEST_SECRET,
          ...FAKE_PSP_ENV,
          ...api.database.env,
        },
        ...args,
      );
    const psps: FakePsp[] = [];
    let identity: string[];
    beforeAll(() => {
      const pki = testPki();
      identity = [
        '--cert',
        file('client.crt', pki.client.cert),
        '--key',
        file('client.key', pki.client.key),
        '--ca',
        file('ca.pem', pki.ca.cert),
      ];
    });
    afterAll(() => Promise.all(psps.map((psp) => psp.close())));

    async function pspAndStore(requires: FakeTokenEndpoint) {
      const psp = await startFakePsp({ chave: CHAVE, token: requires });
      psps.push(psp);
      const store = await createStore(api.db, { name: 'Loja PSP', pixKey: CHAVE });
      const set = (...options: string[]) =>
        cli(
          'pix-provider',
          'set',
          '--store',
          store.id,
          '--base-url',
          psp.baseUrl,
          '--token-url',
          psp.tokenUrl,
          '--client-id',
          psp.clientId,
          ...identity,
          '--json',
          ...options,
        );
      const check = () => cli('pix-provider', 'check', '--store', store.id, '--json');
      return { psp, storeId: store.id, set, check };
    }

    it.each(RECIPES)(
      '$psp: refused in the standard shape, and works in its own',
      async ({ requires, options, refused: refusal, secret }) => {
        const { psp, set, check } = await pspAndStore(requires);
        const secretFile = ['--client-secret-file', file('secret.txt', psp.clientSecret)];
        // Basic + form, no scope: what Storefront always sent.
        expect((await set(...secretFile)).code).toBe(0);
        const refused = await check();
        expect(refused.code, refused.stderr).toBe(1);
        // What the PSP said: its OAuth2 error, named.
        expect(refused.stderr).toContain('The PSP refused our credentials (token endpoint): 400 invalid_');
        expect(refused.stderr).toMatch(refusal);

        const saved = await set(...(secret === false ? [] : secretFile), ...options);
        expect(saved.code, saved.stderr).toBe(0);
        const checked = await check();
        expect(checked.code, checked.stderr).toBe(0);
        expect(JSON.parse(checked.stdout)).toEqual({ ok: true, charges_last_minute: 0 });
        const token = psp.requests.filter((r) => r.path === '/oauth/token').at(-1)!;
        if (secret === false) expect(JSON.stringify(token.body)).not.toContain('client_secret');
      },
      CLI_TIMEOUT,
    );

    it(
      'show prints the shape with the extra parameters by name; their values are sealed at rest',
      async () => {
        const { psp, storeId, set } = await pspAndStore({ params: { audience: 'valor-secreto-123' } });
        const saved = await set(
          '--client-secret-file',
          file('secret.txt', psp.clientSecret),
          '--scope',
          'cob.write cob.read',
          '--token-param',
          'audience=valor-secreto-123',
        );
        expect(saved.code, saved.stderr).toBe(0);
        const shown = JSON.parse((await cli('pix-provider', 'show', '--store', storeId, '--json')).stdout);
        expect(shown.token_request).toEqual({
          scope: 'cob.write cob.read',
          auth: 'basic',
          format: 'form',
          params: ['audience'],
        });
        expect(saved.stdout).not.toContain('valor-secreto-123');
        const row = await api.db
          .selectFrom('pix_providers')
          .select(['token_params', 'token_scope', 'token_auth', 'token_format'])
          .where('store_id', '=', storeId)
          .executeTakeFirstOrThrow();
        expect(row.token_params).not.toContain('valor-secreto-123');
        expect(Object.keys(JSON.parse(row.token_params))).toEqual(['audience']);
      },
      CLI_TIMEOUT,
    );

    it(
      'set refuses a reserved or malformed --token-param, a bad --scope, and no secret with Basic; nothing is saved',
      async () => {
        const { storeId, set } = await pspAndStore({});
        const secretFile = ['--client-secret-file', file('secret.txt', 'x')];
        const refusals: [string[], RegExp][] = [
          [['--token-param', 'client_secret=x'], /--token-param client_secret is set by Storefront/],
          [['--token-param', 'scope=x'], /use --scope/],
          [['--token-param', 'novalue'], /--token-param must be name=value/],
          [['--token-param', 'a=1', '--token-param', 'a=2'], /--token-param a is given twice/],
          [['--scope', 'cob.write  cob.read'], /--scope must be scopes separated by single spaces/],
          [['--token-auth', 'header'], /Allowed choices are basic, body/],
          [['--token-format', 'xml'], /Allowed choices are form, json/],
        ];
        for (const [options, message] of refusals) {
          const res = await set(...secretFile, ...options);
          expect(res.code, options.join(' ')).toBe(1);
          expect(res.stderr).toMatch(message);
        }
        const noSecret = await set();
        expect(noSecret.code).toBe(1);
        expect(noSecret.stderr).toMatch(/--client-secret-file is required/);
        expect(
          await api.db
            .selectFrom('pix_providers')
            .select('store_id')
            .where('store_id', '=', storeId)
            .execute(),
        ).toEqual([]);
      },
      CLI_TIMEOUT,
    );
  },
);
