import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../platform/http/api-error.js';
import { keyedRateLimit } from '../../../platform/http/keyed-rate-limit.js';
import { createSecretBox } from '../../../platform/values/secret-box.js';
import {
  checkCardProvider,
  describeCardProvider,
} from '../../../domain/payments/card-settings/card-provider-admin.js';
import {
  CARD_PSP_LABELS,
  CREDENTIAL_PREFIXES,
  CardCredentialError,
  isCardPsp,
} from '../../../domain/payments/card-settings/card-credentials.js';
import type { CardPsp } from '../../../domain/payments/card-settings/card-credentials.js';
import {
  cardSecretsOf,
  findCardProviderSettings,
  removeCardProviderSettings,
  saveCardProviderSettings,
} from '../../../domain/payments/card-settings/card-provider-settings.js';
import { ProviderError } from '../../../domain/payments/provider-errors.js';
import {
  describeInstallmentPolicy,
  installmentChanges,
  installmentPolicyOf,
} from '../../../domain/stores/installment-settings.js';
import type { InstallmentSettingsInput } from '../../../domain/stores/installment-settings.js';
import { updateStoreSettings } from '../../../domain/stores/store-settings.js';
import { findStore } from '../../../domain/stores/stores.js';
import { auditRequest } from '../shell/audit-request.js';
import { FormText, parseBrl, parseWhole } from '../shell/form-values.js';
import { noticeOf } from '../shell/notices.js';
import { defineScreen, guard, member, sendPage } from '../shell/page.js';
import { CARDS_PATH, CARD_MODES, CardsPage, MODE_LABELS } from './cards-view.js';
import type { CardMode, CardsSection, CardsState } from './cards-view.js';
import { DashboardError } from '../shell/dashboard-plugin.js';

const NOTICES = {
  parcelamento: 'Parcelamento salvo.',
  'salvo-live': 'PSP de produção salvo. Cole a URL de notificação no painel do PSP e teste a conexão.',
  'salvo-test': 'PSP de teste salvo. Cole a URL de notificação no painel do PSP e teste a conexão.',
  'removido-live': 'PSP de produção removido: a loja não aceita mais cartão de verdade.',
  'removido-test': 'PSP de teste removido: o modo Teste volta a usar o cartão simulado.',
} as const;
type NoticeKey = keyof typeof NOTICES;

const Query = Type.Object({ aviso: Type.Optional(Type.String({ maxLength: 40 })) });
const Csrf = { _csrf: Type.Optional(Type.String()) };
const ModeBody = Type.Object({ mode: Type.String({ maxLength: 10 }), ...Csrf });
const ProviderBody = Type.Object({
  mode: Type.String({ maxLength: 10 }),
  provider: FormText,
  public_key: FormText,
  secret: FormText,
  webhook_secret: FormText,
  base_url: FormText,
  ca_pem: Type.Optional(Type.String({ maxLength: 100_000 })),
  ...Csrf,
});
const PolicyBody = Type.Object({
  max_installments: FormText,
  interest_free_installments: FormText,
  monthly_interest_rate: FormText,
  min_installment_amount: FormText,
  ...Csrf,
});

/** The installment terms' refusals, by the API's field (the same rules as PATCH /store). */
const POLICY_MESSAGES: Record<keyof InstallmentSettingsInput, string> = {
  max_installments: 'O máximo de parcelas vai de 1 a 12.',
  interest_free_installments: 'As parcelas sem juros vão de 1 até o máximo de parcelas.',
  monthly_interest_rate: 'Os juros ao mês vão de 0 a 10%, com até 2 casas decimais (por exemplo 2,99).',
  min_installment_amount: 'A parcela mínima vai de R$ 1,00 a R$ 1.000.000,00, com até 2 casas decimais.',
};

const isMode = (value: string): value is CardMode => (CARD_MODES as readonly string[]).includes(value);

/** A refused credential, in the words of the form it was typed into. */
function credentialMessage(error: CardCredentialError, psp: CardPsp, mode: CardMode): string {
  const name =
    error.field === 'public_key'
      ? 'A chave pública'
      : error.field === 'webhook_secret'
        ? 'O segredo do webhook'
        : psp === 'mercadopago'
          ? 'O access token'
          : 'A chave secreta';
  if (error.field === 'webhook_secret')
    return psp === 'mercadopago'
      ? 'O segredo do webhook não pode ter espaços: copie-o como o Mercado Pago mostra.'
      : 'O segredo do webhook é só do Mercado Pago: deixe-o em branco para o Pagar.me.';
  if (error.problem === 'same_as_secret')
    return 'A chave pública não pode ser igual à secreta: ela aparece na página de compra.';
  if (error.problem === 'empty') return `Informe ${name.charAt(0).toLowerCase()}${name.slice(1)}.`;
  const prefixes = CREDENTIAL_PREFIXES[psp][error.field];
  if (error.problem === 'other_mode') {
    const other = mode === 'live' ? 'test' : 'live';
    return `${name} é de ${MODE_LABELS[other].toLowerCase()}, mas este PSP é o de ${MODE_LABELS[mode].toLowerCase()}: use a credencial que começa com ${prefixes[mode]}.`;
  }
  return `${name} do ${CARD_PSP_LABELS[psp]} começa com ${prefixes.test} (teste) ou ${prefixes.live} (produção), sem espaços.`;
}

/** "Testar conexão" a minute per store: each one makes the service connect where the owner said. */
const CONNECTION_TESTS_PER_MINUTE = 10;

/** Why the test failed, in fixed words: nothing the far end sent is shown; the full error goes to the log. */
function connectionTestFailure(error: ProviderError): { message: string; audit: string } {
  if (error.blockedAddress)
    return {
      message:
        'Endereço do PSP não permitido: a URL base precisa apontar para um endereço público da internet.',
      audit: 'falhou: endereço não permitido',
    };
  if (error.pspStatus === null)
    return {
      message: 'Não foi possível conectar ao PSP: confira a URL base e a CA.',
      audit: 'falhou: sem resposta do PSP',
    };
  return {
    message: `O PSP recusou o pedido (HTTP ${error.pspStatus}): confira o access token ou a chave secreta.`,
    audit: `falhou: o PSP respondeu HTTP ${error.pspStatus}`,
  };
}

/**
 * Configurações › Cartão de crédito: the store's installment terms (editors, the same rules as
 * PATCH /store) and, for owners, each mode's card PSP, checked and sealed by the service of the CLI's
 * `card-provider set`, with its notification URL and "Testar conexão" (`card-provider check`).
 */
export const cardsScreen = defineScreen('cards', async (app, services) => {
  const { db, config } = app;
  const box = createSecretBox(config.secret);
  const connectionTests = keyedRateLimit(
    'card-connection-tests',
    CONNECTION_TESTS_PER_MINUTE,
    services.redis,
    app.log,
  );
  app.addHook('onClose', async () => connectionTests.close());

  async function show(request: FastifyRequest, reply: FastifyReply, state: CardsState, status = 200) {
    const { storeId, role } = member(request);
    const store = await findStore(db, storeId);
    if (!store) throw new DashboardError(404, 'Loja não encontrada.');
    let providers;
    if (role === 'owner') {
      const [live, test] = await Promise.all(
        CARD_MODES.map((mode) => findCardProviderSettings(db, storeId, mode === 'live')),
      );
      const shown = (row: typeof live) => (row ? describeCardProvider(box, row, config.publicUrl) : null);
      providers = { live: shown(live), test: shown(test) };
    }
    return sendPage(request, reply, services, {
      title: 'Cartão de crédito',
      nav: 'settings',
      status,
      body: (
        <CardsPage
          data={{ policy: installmentPolicyOf(store), providers, canEditPolicy: role !== 'viewer' }}
          state={state}
        />
      ),
    });
  }

  const done = (reply: FastifyReply, notice: NoticeKey, anchor: string) =>
    reply.redirect(`${CARDS_PATH}?aviso=${notice}#${anchor}`, 303);

  app.get('/configuracoes/cartao', guard('viewer', { querystring: Query }), async (request, reply) => {
    const key = request.query.aviso;
    const notice = noticeOf(NOTICES, key);
    const section: CardsSection | undefined = notice
      ? key === 'parcelamento'
        ? 'parcelamento'
        : key!.endsWith('-live')
          ? 'live'
          : 'test'
      : undefined;
    return show(request, reply, { notice, section });
  });

  app.post(
    '/configuracoes/cartao/parcelamento',
    guard('editor', { body: PolicyBody }),
    async (request, reply) => {
      const { storeId } = member(request);
      const store = (await findStore(db, storeId))!;
      const { _csrf, ...typed } = request.body;
      const values = Object.fromEntries(Object.entries(typed).map(([name, value]) => [name, value ?? '']));
      const refuse = (field: keyof InstallmentSettingsInput) =>
        show(request, reply, { section: 'parcelamento', error: POLICY_MESSAGES[field], values }, 400);
      const input: InstallmentSettingsInput = {};
      for (const [field, parse] of [
        ['max_installments', parseWhole],
        ['interest_free_installments', parseWhole],
        ['monthly_interest_rate', parseBrl],
        ['min_installment_amount', parseBrl],
      ] as const) {
        const value = parse(values[field]);
        if (typeof value === 'string') return refuse(field);
        input[field] = value;
      }
      let set;
      try {
        set = installmentChanges(store, input);
      } catch (error) {
        if (!(error instanceof ApiError) || error.statusCode !== 400) throw error;
        return refuse(error.param!.split('.')[1] as keyof InstallmentSettingsInput);
      }
      const before = describeInstallmentPolicy(installmentPolicyOf(store));
      const after = describeInstallmentPolicy(installmentPolicyOf({ ...store, ...set }));
      await db.transaction().execute(async (trx) => {
        await updateStoreSettings(trx, store, set);
        if (before !== after)
          await auditRequest(trx, request, 'store_updated', `parcelamento: ${before} → ${after}`);
      });
      return done(reply, 'parcelamento', 'parcelamento');
    },
  );

  app.post('/configuracoes/cartao', guard('owner', { body: ProviderBody }), async (request, reply) => {
    const { storeId } = member(request);
    const { body } = request;
    if (!isMode(body.mode)) throw new DashboardError(400, 'Modo desconhecido.');
    const mode = body.mode;
    const livemode = mode === 'live';
    const values = {
      provider: body.provider ?? '',
      public_key: body.public_key ?? '',
      base_url: body.base_url ?? '',
      ca_pem: body.ca_pem ?? '',
    };
    const refuse = (error: string) => show(request, reply, { section: mode, error, values }, 400);
    const psp = values.provider;
    if (!isCardPsp(psp)) return refuse('Escolha o PSP: Mercado Pago ou Pagar.me.');
    const existing = await findCardProviderSettings(db, storeId, livemode);
    // Write-only fields left blank keep what the same PSP already has.
    const kept = existing?.provider === psp ? existing : undefined;
    const keptSecrets = kept ? cardSecretsOf(box, kept) : undefined;
    const typed = (value: string | undefined) => (value ?? '').trim();
    const secret = typed(body.secret) || keptSecrets?.secret || '';
    const webhookSecret = typed(body.webhook_secret) || keptSecrets?.webhookSecret || null;
    const caPem = values.ca_pem.trim() || kept?.ca_pem || undefined;
    try {
      await db.transaction().execute(async (trx) => {
        const saved = await saveCardProviderSettings(trx, box, {
          storeId,
          livemode,
          provider: psp,
          secret,
          publicKey: values.public_key,
          webhookSecret,
          baseUrl: values.base_url.trim() || undefined,
          caPem,
        });
        await auditRequest(
          trx,
          request,
          'card_provider_changed',
          `${CARD_PSP_LABELS[saved.provider]} (${MODE_LABELS[mode].toLowerCase()}): ${saved.base_url}, chave pública ${saved.public_key}`,
        );
      });
    } catch (error) {
      if (error instanceof CardCredentialError) return refuse(credentialMessage(error, psp, mode));
      const message = (error as Error).message;
      if (/--base-url/.test(message))
        return refuse('A URL base precisa ser um endereço https://, sem usuário nem senha.');
      if (/--ca/.test(message)) return refuse('A CA do PSP precisa ser um certificado PEM.');
      throw error;
    }
    return done(reply, `salvo-${mode}`, mode);
  });

  app.post('/configuracoes/cartao/remover', guard('owner', { body: ModeBody }), async (request, reply) => {
    const { storeId } = member(request);
    const { mode } = request.body;
    if (!isMode(mode)) throw new DashboardError(400, 'Modo desconhecido.');
    const removed = await db.transaction().execute(async (trx) => {
      const done = await removeCardProviderSettings(trx, storeId, mode === 'live');
      if (done)
        await auditRequest(
          trx,
          request,
          'card_provider_changed',
          `${MODE_LABELS[mode].toLowerCase()}: removidas`,
        );
      return done;
    });
    if (!removed)
      return show(request, reply, { section: mode, error: 'Este PSP já não estava configurado.' }, 400);
    return done(reply, `removido-${mode}`, mode);
  });

  app.post('/configuracoes/cartao/testar', guard('owner', { body: ModeBody }), async (request, reply) => {
    const { storeId } = member(request);
    const { mode } = request.body;
    if (!isMode(mode)) throw new DashboardError(400, 'Modo desconhecido.');
    const livemode = mode === 'live';
    const row = await findCardProviderSettings(db, storeId, livemode);
    if (!row)
      return show(request, reply, { section: mode, error: 'Este PSP ainda não foi configurado.' }, 400);
    const wait = await connectionTests.consume(storeId);
    if (wait !== null) {
      reply.header('retry-after', String(wait));
      const error = `Muitos testes de conexão em pouco tempo. Tente de novo em ${wait} segundo(s).`;
      return show(request, reply, { section: mode, error }, 429);
    }
    const target = `${CARD_PSP_LABELS[row.provider]} (${MODE_LABELS[mode].toLowerCase()}, ${row.base_url})`;
    try {
      await checkCardProvider(await app.payments.card({ storeId, livemode }));
      await auditRequest(db, request, 'card_connection_tested', `${target}: funcionando`);
      return show(request, reply, {
        section: mode,
        notice: `Conexão com o ${CARD_PSP_LABELS[row.provider]} funcionando: as credenciais foram aceitas.`,
      });
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      request.log.warn({ storeId, mode, reason: error.message }, 'card PSP connection test failed');
      const failure = connectionTestFailure(error);
      await auditRequest(db, request, 'card_connection_tested', `${target}: ${failure.audit}`);
      return show(request, reply, { section: mode, error: failure.message }, 502);
    }
  });
});
