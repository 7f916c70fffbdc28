import { beforeAll, expect, it } from 'vitest';
import { createSecretBox } from '../../src/platform/values/secret-box.js';
import { updateStore } from '../../src/domain/stores/stores.js';
import { CHAVE, describeLivePix, useLivePix } from '../live-pix/live-harness.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import type { DashboardSession } from '../support/dashboard.js';
import { describeEachDatabase } from '../support/test-api.js';
import { testPki } from '../support/test-pki.js';

const PATH = '/dashboard/configuracoes/psp';

describeLivePix('dashboard PSP settings', (api) => {
  const live = useLivePix(api);
  const pki = testPki();
  let storeId: string;
  let owner: DashboardSession;
  let editor: DashboardSession;
  let viewer: DashboardSession;

  /** A multipart form POST as a browser sends the page's form (fields and files). */
  async function upload(
    session: DashboardSession,
    fields: Record<string, string>,
    files: Record<string, string | Buffer>,
  ) {
    const form = new FormData();
    form.set('_csrf', session.csrf);
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    for (const [name, content] of Object.entries(files))
      form.set(
        name,
        new Blob([typeof content === 'string' ? content : new Uint8Array(content)]),
        `${name}.pem`,
      );
    const res = await fetch(`${api.baseUrl}${PATH}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: session.cookie, origin: api.baseUrl },
      body: form,
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  }
  const pspFields = () => ({
    base_url: live.psp().baseUrl,
    token_url: live.psp().tokenUrl,
    client_id: live.psp().clientId,
    client_secret: live.psp().clientSecret,
  });
  const row = () =>
    api.db.selectFrom('pix_providers').selectAll().where('store_id', '=', storeId).executeTakeFirst();

  beforeAll(async () => {
    ({ storeId } = await api.createStore({ name: 'Loja PSP' }));
    owner = await dashboardLogin(api.baseUrl, await addDashboardUser(api, storeId, 'owner'));
    editor = await dashboardLogin(api.baseUrl, await addDashboardUser(api, storeId, 'editor'));
    viewer = await dashboardLogin(api.baseUrl, await addDashboardUser(api, storeId, 'viewer'));
  });

  it('needs the Pix key first, then saves PEM settings sealed like the CLI; Testar conexão succeeds', async () => {
    const noKey = await upload(owner, pspFields(), {
      certificate: pki.client.cert,
      private_key: pki.client.key,
      ca: pki.ca.cert,
    });
    expect(noKey.status).toBe(400);
    expect(noKey.text).toContain('chave Pix');
    expect(await row()).toBeUndefined();
    await updateStore(api.db, storeId, { pixKey: CHAVE });

    const saved = await upload(owner, pspFields(), {
      certificate: pki.client.cert,
      private_key: pki.client.key,
      ca: pki.ca.cert,
    });
    expect(saved.status).toBe(303);
    const stored = (await row())!;
    const box = createSecretBox(api.config.secret);
    expect(box.open(stored.client_secret_sealed, `pix_providers:${storeId}:client_secret`)).toBe(
      live.psp().clientSecret,
    );
    expect(stored.private_key_sealed).not.toContain('PRIVATE KEY');
    expect(stored.ca_pem).toBe(pki.ca.cert);

    const page = await dashboardRequest(api.baseUrl, owner, 'GET', saved.headers.get('location')!);
    expect(page.text).toContain('Configurações do PSP salvas');
    expect(page.text).toContain(stored.certificate_subject);
    expect(page.text).not.toContain(live.psp().clientSecret);
    expect(page.text).not.toContain('PRIVATE KEY');

    const check = await dashboardRequest(api.baseUrl, owner, 'POST', `${PATH}/testar`, {});
    expect(check.status).toBe(200);
    expect(check.text).toContain('Conexão com o PSP funcionando');
    const audit = await api.db
      .selectFrom('audit_log')
      .select('detail')
      .where('store_id', '=', storeId)
      .where('action', '=', 'psp_settings_changed')
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]!.detail).not.toContain(live.psp().clientSecret);
  });

  it('refuses a certificate that does not match its key, keeping the earlier settings', async () => {
    const before = (await row())!;
    const wrong = await upload(owner, pspFields(), {
      certificate: pki.client.cert,
      private_key: pki.strangerClient.key,
      ca: pki.ca.cert,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('O certificado não corresponde à chave privada.');
    expect(wrong.text).not.toContain(live.psp().clientSecret);
    expect(await row()).toEqual(before);
    const missing = await upload(owner, pspFields(), { certificate: pki.client.cert });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('chave privada');
  });

  it('takes a PKCS#12 with its passphrase; a wrong client secret fails Testar conexão in fixed words, audited', async () => {
    const pfx = await upload(
      owner,
      { ...pspFields(), client_secret: 'segredo-errado', passphrase: pki.pfxPassphrase },
      { pfx: pki.clientPfx, ca: pki.ca.cert },
    );
    expect(pfx.status).toBe(303);
    expect((await row())!.pfx_sealed).not.toBeNull();
    const check = await dashboardRequest(api.baseUrl, owner, 'POST', `${PATH}/testar`, {});
    expect(check.status).toBe(502);
    expect(check.text).toContain('O PSP recusou o pedido (HTTP 401)');
    // What the PSP answered is not echoed: its problem+json stays in the operator's log.
    expect(check.text).not.toContain('Credenciais do cliente inválidas');
    expect(check.text).not.toContain('AcessoNegado');
    expect(check.text).not.toContain('segredo-errado');
    const tested = await api.db
      .selectFrom('audit_log')
      .select(['detail', 'user_id'])
      .where('store_id', '=', storeId)
      .where('action', '=', 'psp_connection_tested')
      .orderBy('created_at')
      .execute();
    expect(tested.map((entry) => entry.detail)).toEqual([
      expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+\/v2 \(token: .*\): funcionando$/),
      expect.stringMatching(/: falhou: o PSP respondeu HTTP 401$/),
    ]);
    expect(tested.every((entry) => entry.user_id !== null)).toBe(true);
  });

  it('limits uploads to 64 KB a file (at the limit it is read, one byte more answers 413)', async () => {
    const atLimit = await upload(owner, pspFields(), {
      certificate: Buffer.alloc(64 * 1024, 'a'),
      private_key: pki.client.key,
    });
    expect(atLimit.status).toBe(400);
    expect(atLimit.text).toContain('O certificado não pôde ser lido');
    const over = await upload(owner, pspFields(), {
      certificate: Buffer.alloc(64 * 1024 + 1, 'a'),
      private_key: pki.client.key,
    });
    expect(over.status).toBe(413);
  });

  const pemFiles = () => ({ certificate: pki.client.cert, private_key: pki.client.key, ca: pki.ca.cert });
  const account = { account_branch: '0001', account_number: '12345-6', account_type: 'corrente' };

  it('saves the receiving account (Agência, Conta, Tipo de conta), shows it and audits it', async () => {
    const page = await dashboardRequest(api.baseUrl, owner, 'GET', PATH);
    for (const label of ['Agência', 'Conta', 'Tipo de conta', 'Conta poupança', 'Conta de pagamento'])
      expect(page.text).toContain(label);
    const saved = await upload(owner, { ...pspFields(), ...account }, pemFiles());
    expect(saved.status).toBe(303);
    expect(await row()).toMatchObject({
      account_branch: '0001',
      account_number: '12345-6',
      account_type: 'corrente',
    });
    const shown = await dashboardRequest(api.baseUrl, owner, 'GET', PATH);
    expect(shown.text).toContain('Agência 0001, conta 12345-6 (Conta corrente)');
    expect(shown.text).toMatch(/name="account_number"[^>]*value="12345-6"/);
    const audited = await api.db
      .selectFrom('audit_log')
      .select('detail')
      .where('store_id', '=', storeId)
      .where('action', '=', 'psp_settings_changed')
      .execute();
    expect(audited.map((entry) => entry.detail)).toContainEqual(
      expect.stringContaining('conta recebedora: agência 0001, conta 12345-6 (corrente)'),
    );
  });

  it.each([
    {
      entry: 'a 21-character account',
      fields: { ...account, account_number: '1234567890123456789-0' },
      message: 'A conta tem até 20 caracteres',
    },
    {
      entry: 'a 5-digit branch',
      fields: { ...account, account_branch: '12345' },
      message: 'A agência tem de 1 a 4',
    },
    {
      entry: 'an account without its type',
      fields: { ...account, account_type: '' },
      message: 'Escolha o tipo de conta',
    },
    {
      entry: 'an unknown type',
      fields: { ...account, account_type: 'investimento' },
      message: 'Escolha o tipo de conta',
    },
  ])('refuses $entry, keeping the earlier settings and what was typed', async ({ fields, message }) => {
    const before = await row();
    const refused = await upload(owner, { ...pspFields(), ...fields }, pemFiles());
    expect(refused.status).toBe(400);
    expect(refused.text).toContain(message);
    expect(refused.text).toContain(`value="${fields.account_number}"`);
    expect(await row()).toEqual(before);
  });

  it('is owners only: an editor’s upload or test answers 403 and changes nothing', async () => {
    const before = await row();
    expect((await dashboardRequest(api.baseUrl, editor, 'GET', PATH)).status).toBe(403);
    expect((await dashboardRequest(api.baseUrl, viewer, 'GET', PATH)).status).toBe(403);
    const res = await upload(editor, pspFields(), {
      certificate: pki.client.cert,
      private_key: pki.client.key,
    });
    expect(res.status).toBe(403);
    const otherAccount = { ...account, account_number: '99999-9' };
    for (const session of [editor, viewer])
      expect((await upload(session, { ...pspFields(), ...otherAccount }, pemFiles())).status).toBe(403);
    expect((await dashboardRequest(api.baseUrl, editor, 'POST', `${PATH}/testar`, {})).status).toBe(403);
    // Without the CSRF token the owner's upload is refused too.
    const forged = await upload({ ...owner, csrf: 'x' }, pspFields(), {
      certificate: pki.client.cert,
      private_key: pki.client.key,
    });
    expect(forged.status).toBe(403);
    expect(await row()).toEqual(before);
  });
});

describeEachDatabase('dashboard PSP settings: owner-set URLs meet the outbound address policy', (api) => {
  // No STOREFRONT_PSP_ALLOWED_HOSTS here: the fake PSP on 127.0.0.1 is what an owner must not reach.
  const live = useLivePix(api);
  const pki = testPki();
  let storeId: string;
  let owner: DashboardSession;

  async function saveUrls(session: DashboardSession, baseUrl: string, tokenUrl: string) {
    const form = new FormData();
    form.set('_csrf', session.csrf);
    const fields = { base_url: baseUrl, token_url: tokenUrl, client_id: live.psp().clientId };
    for (const [name, value] of Object.entries({ ...fields, client_secret: live.psp().clientSecret }))
      form.set(name, value);
    const files = { certificate: pki.client.cert, private_key: pki.client.key, ca: pki.ca.cert };
    for (const [name, content] of Object.entries(files)) form.set(name, new Blob([content]), `${name}.pem`);
    const res = await fetch(`${api.baseUrl}${PATH}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: session.cookie, origin: api.baseUrl },
      body: form,
    });
    expect(res.status).toBe(303);
  }
  const testConnection = (session: DashboardSession) =>
    dashboardRequest(api.baseUrl, session, 'POST', `${PATH}/testar`, {});

  beforeAll(async () => {
    ({ storeId } = await api.createStore({ name: 'Loja Hostil' }));
    await updateStore(api.db, storeId, { pixKey: CHAVE });
    owner = await dashboardLogin(api.baseUrl, await addDashboardUser(api, storeId, 'owner'));
  });

  it.each([
    { target: 'loopback (the fake PSP itself)', base: (port: number) => `https://127.0.0.1:${port}/v2` },
    { target: 'a name resolving to loopback', base: (port: number) => `https://localhost:${port}/v2` },
    { target: 'IPv6 loopback', base: (port: number) => `https://[::1]:${port}/v2` },
    { target: 'a private address', base: () => 'https://10.0.0.1/v2' },
    { target: 'the link-local metadata address', base: () => 'https://169.254.169.254/latest' },
  ])('refuses $target at connect time, in fixed words, and audits the test', async ({ base }) => {
    const psp = live.psp();
    const port = Number(new URL(psp.baseUrl).port);
    const baseUrl = base(port);
    await saveUrls(owner, baseUrl, `${new URL(baseUrl).origin}/oauth/token`);
    const before = { requests: psp.requests.length, tokens: psp.tokensIssued };

    const started = Date.now();
    const check = await testConnection(owner);
    expect(check.status).toBe(502);
    expect(check.text).toContain('Endereço do PSP não permitido');
    expect(check.text).not.toMatch(/EBLOCKEDADDRESS|non-public|AcessoNegado/);
    // Refused before any socket opened: no waiting on a private address, nothing reached the PSP.
    expect(Date.now() - started).toBeLessThan(api.config.pspConnectTimeoutMs);
    expect({ requests: psp.requests.length, tokens: psp.tokensIssued }).toEqual(before);
    const audited = await api.db
      .selectFrom('audit_log')
      .select('detail')
      .where('store_id', '=', storeId)
      .where('action', '=', 'psp_connection_tested')
      .execute();
    expect(audited.map((entry) => entry.detail)).toContainEqual(
      `${baseUrl} (token: ${new URL(baseUrl).origin}/oauth/token): falhou: endereço não permitido`,
    );
  });

  it('limits Testar conexão to 10 a minute per store (429 in Portuguese); another store keeps its own', async () => {
    await saveUrls(owner, 'https://10.0.0.1/v2', 'https://10.0.0.1/oauth/token');
    const statuses: number[] = [];
    let last = await testConnection(owner);
    statuses.push(last.status);
    while (last.status !== 429 && statuses.length < 12) {
      last = await testConnection(owner);
      statuses.push(last.status);
    }
    // The earlier cases of this suite used some of the minute's 10.
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.slice(0, -1).every((status) => status === 502)).toBe(true);
    expect(last.text).toContain('Muitos testes de conexão em pouco tempo');
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    const total = await api.db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('store_id', '=', storeId)
      .where('action', '=', 'psp_connection_tested')
      .executeTakeFirstOrThrow();
    expect(Number(total.n)).toBe(10);

    const other = await api.createStore({ name: 'Outra Loja' });
    await updateStore(api.db, other.storeId, { pixKey: CHAVE });
    const otherOwner = await dashboardLogin(api.baseUrl, await addDashboardUser(api, other.storeId, 'owner'));
    await saveUrls(otherOwner, 'https://10.0.0.1/v2', 'https://10.0.0.1/oauth/token');
    expect((await testConnection(otherOwner)).status).toBe(502);
  });
});
