import { afterAll, beforeAll, expect, it } from 'vitest';
import { auditRecords } from '../support/audit-records.js';
import { memberPerRole } from '../support/dashboard.js';
import { startFakeMercadoPago } from '../support/fake-mercadopago.js';
import type { FakeMercadoPago } from '../support/fake-mercadopago.js';
import { describeEachDatabase } from '../support/test-api.js';

const PATH = '/dashboard/configuracoes/cartao';
const PAGARME_SECRET = 'sk_test_0f1e2d3c4b5a69788796a5b4c3d2e1f0';
const logLines: Record<string, unknown>[] = [];

describeEachDatabase(
  'Configurações › Cartão de crédito',
  (api) => {
    const members = memberPerRole(api);
    let storeId: string;
    let mp: FakeMercadoPago;
    const row = (livemode: number) =>
      api.db
        .selectFrom('card_providers')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('livemode', '=', livemode)
        .executeTakeFirst();
    const mpFields = () => ({
      mode: 'test',
      provider: 'mercadopago',
      public_key: mp.publicKey,
      secret: mp.accessToken,
      webhook_secret: mp.webhookSecret,
      base_url: mp.baseUrl,
      ca_pem: mp.caPem,
    });

    beforeAll(async () => {
      mp = await startFakeMercadoPago({
        accessToken: 'TEST-2222222222222222-112820-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb-222222222',
        publicKey: 'TEST-bbbbbbbb-1111-2222-3333-444444444444',
      });
      ({ storeId } = await api.createStore({ name: 'Loja Cartão Painel' }));
      await members.signIn(storeId);
    });
    afterAll(() => mp.close());

    it('owners see both modes’ PSP forms; editors only the terms; viewers read the terms', async () => {
      const owner = await members.get('owner', PATH);
      expect(owner.status).toBe(200);
      expect(owner.text).toContain('PSP de cartão: Produção');
      expect(owner.text).toContain('o modo Teste usa o cartão simulado');
      const editor = await members.get('editor', PATH);
      expect(editor.text).toContain('Salvar parcelamento');
      expect(editor.text).not.toContain('PSP de cartão');
      const viewer = await members.get('viewer', PATH);
      expect(viewer.status).toBe(200);
      expect(viewer.text).not.toContain('Salvar parcelamento');
      expect(viewer.text).toMatch(/Juros ao mês<\/dt>\s*<dd>2,99%/);
      for (const role of ['editor', 'viewer'] as const) {
        expect((await members.post(role, PATH, mpFields())).status).toBe(403);
        expect((await members.post(role, `${PATH}/testar`, { mode: 'test' })).status).toBe(403);
        expect((await members.post(role, `${PATH}/remover`, { mode: 'test' })).status).toBe(403);
      }
      expect((await members.post('viewer', `${PATH}/parcelamento`, {})).status).toBe(403);
      expect(await row(0)).toBeUndefined();
    });

    it('refuses, in Portuguese, a credential of the other mode, a malformed one and an http base URL', async () => {
      const refusals: [Record<string, string>, string][] = [
        [{ secret: 'APP_USR-123-abc' }, 'O access token é de produção, mas este PSP é o de teste'],
        [{ public_key: 'APP_USR-abc' }, 'A chave pública é de produção'],
        [{ secret: 'abc' }, 'O access token do Mercado Pago começa com TEST- (teste) ou APP_USR- (produção)'],
        [{ base_url: 'http://api.mercadopago.com' }, 'A URL base precisa ser um endereço https://'],
        [
          { provider: 'pagarme', secret: PAGARME_SECRET, public_key: 'pk_live_abc', webhook_secret: '' },
          'A chave pública é de produção',
        ],
        [{ provider: 'pagarme', secret: PAGARME_SECRET, public_key: 'pk_test_abc' }, 'só do Mercado Pago'],
        [{ secret: '' }, 'Informe o access token.'],
      ];
      for (const [change, message] of refusals) {
        const res = await members.post('owner', PATH, { ...mpFields(), ...change });
        expect(res.status, message).toBe(400);
        expect(res.text).toContain(message);
        expect(res.text).not.toContain(mp.accessToken);
        expect(res.text).not.toContain(PAGARME_SECRET);
      }
      expect(await row(0)).toBeUndefined();
    });

    it('an owner sets the test PSP: sealed, the notification URL shown, the secret never; Testar conexão reads through it', async () => {
      const saved = await members.post('owner', PATH, mpFields());
      expect(saved.status).toBe(303);
      expect(saved.headers.get('location')).toBe(`${PATH}?aviso=salvo-test#test`);
      const stored = (await row(0))!;
      expect(stored).toMatchObject({
        provider: 'mercadopago',
        public_key: mp.publicKey,
        base_url: mp.baseUrl,
      });
      expect(JSON.stringify(stored)).not.toContain(mp.accessToken);
      expect(JSON.stringify(stored)).not.toContain(mp.webhookSecret);

      const page = await members.get('owner', `${PATH}?aviso=salvo-test`);
      expect(page.text).toContain('PSP de teste salvo.');
      expect(page.text).toMatch(/\/callbacks\/card\/[A-Za-z0-9_-]{43}"/);
      expect(page.text).not.toContain(mp.accessToken);
      expect(page.text).not.toContain(mp.webhookSecret);

      // The secret left blank keeps the one set (same PSP).
      const kept = await members.post('owner', PATH, { ...mpFields(), secret: '', webhook_secret: '' });
      expect(kept.status).toBe(303);

      const tested = await members.post('owner', `${PATH}/testar`, { mode: 'test' });
      expect(tested.status).toBe(200);
      expect(tested.text).toContain('Conexão com o Mercado Pago funcionando');
      expect(mp.requests.at(-1)).toMatchObject({ authorization: `Bearer ${mp.accessToken}` });

      const audit = await auditRecords(api, storeId, 'card_');
      expect(audit.map((entry) => [entry.action, entry.actor_kind])).toEqual([
        ['card_provider_changed', 'person'],
        ['card_provider_changed', 'person'],
        ['card_connection_tested', 'person'],
      ]);
      expect(audit.at(-1)!.detail).toBe(`Mercado Pago (teste, ${mp.baseUrl}): funcionando`);
      expect(JSON.stringify(audit)).not.toContain(mp.accessToken);
      expect(JSON.stringify(logLines)).not.toContain(mp.accessToken);
    });

    it('Testar conexão with a refused token says so in fixed words and is audited; removing goes back to simulated', async () => {
      const wrong = 'TEST-3333333333333333-112820-cccccccccccccccccccccccccccccccc-333333333';
      expect((await members.post('owner', PATH, { ...mpFields(), secret: wrong })).status).toBe(303);
      const tested = await members.post('owner', `${PATH}/testar`, { mode: 'test' });
      expect(tested.status).toBe(502);
      expect(tested.text).toContain('O PSP recusou o pedido (HTTP 401)');
      expect((await auditRecords(api, storeId, 'card_connection')).at(-1)!.detail).toMatch(
        /: falhou: o PSP respondeu HTTP 401$/,
      );
      expect(JSON.stringify(logLines)).not.toContain(wrong);

      const removed = await members.post('owner', `${PATH}/remover`, { mode: 'test' });
      expect(removed.status).toBe(303);
      expect(await row(0)).toBeUndefined();
      expect((await members.post('owner', `${PATH}/testar`, { mode: 'test' })).text).toContain(
        'Este PSP ainda não foi configurado.',
      );
    });

    it('limits Testar conexão to 10 a minute per store, answering 429 in Portuguese', async () => {
      expect((await members.post('owner', PATH, mpFields())).status).toBe(303);
      const statuses: number[] = [];
      let last;
      do {
        last = await members.post('owner', `${PATH}/testar`, { mode: 'test' });
        statuses.push(last.status);
      } while (last.status === 200 && statuses.length < 12);
      // Two were used by the tests above.
      expect(statuses).toEqual([...Array<number>(8).fill(200), 429]);
      expect(last.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(last.text).toContain('Muitos testes de conexão em pouco tempo.');
    });

    it('editors set the installment terms with the API’s rules, in Portuguese; a refusal keeps what was typed', async () => {
      const terms = {
        max_installments: '10',
        interest_free_installments: '3',
        monthly_interest_rate: '1,99',
        min_installment_amount: '7,50',
      };
      const saved = await members.post('editor', `${PATH}/parcelamento`, terms);
      expect(saved.status).toBe(303);
      const store = await api.db
        .selectFrom('stores')
        .selectAll()
        .where('id', '=', storeId)
        .executeTakeFirstOrThrow();
      expect(store).toMatchObject({
        card_max_installments: 10,
        card_interest_free_installments: 3,
        card_monthly_interest_bp: 199,
        card_min_installment_cents: 750,
      });
      expect((await auditRecords(api, storeId, 'store_updated')).at(-1)).toMatchObject({
        actor_kind: 'person',
        detail: expect.stringMatching(/→ até 10x, 3x sem juros, 1,99% ao mês, parcela mínima R\$ 7,50$/),
      });

      const refusals: [Record<string, string>, string][] = [
        [{ max_installments: '13' }, 'O máximo de parcelas vai de 1 a 12.'],
        [{ interest_free_installments: '11' }, 'As parcelas sem juros vão de 1 até o máximo de parcelas.'],
        [{ monthly_interest_rate: '10,01' }, 'Os juros ao mês vão de 0 a 10%'],
        [{ monthly_interest_rate: '2,999' }, 'Os juros ao mês vão de 0 a 10%'],
        [{ monthly_interest_rate: 'muito' }, 'Os juros ao mês vão de 0 a 10%'],
        [{ min_installment_amount: '0,99' }, 'A parcela mínima vai de R$ 1,00'],
      ];
      for (const [change, message] of refusals) {
        const res = await members.post('editor', `${PATH}/parcelamento`, { ...terms, ...change });
        expect(res.status, message).toBe(400);
        expect(res.text).toContain(message);
        expect(res.text).toContain(`value="${Object.values(change)[0]}"`);
      }
      const zero = await members.post('editor', `${PATH}/parcelamento`, {
        ...terms,
        max_installments: '12',
        monthly_interest_rate: '0',
      });
      expect(zero.status).toBe(303);
    });
  },
  { config: { pspAllowedHosts: new Set(['127.0.0.1']) }, logLines },
);
