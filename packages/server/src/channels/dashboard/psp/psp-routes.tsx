import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createSecretBox } from '../../../platform/values/secret-box.js';
import { CertificateError } from '../../../domain/payments/api-pix/client-certificate.js';
import type { ClientIdentity } from '../../../domain/payments/api-pix/client-certificate.js';
import { checkProvider, describeProvider } from '../../../domain/payments/api-pix/provider-admin.js';
import { ProviderError } from '../../../domain/payments/provider-errors.js';
import {
  findProviderSettings,
  saveProviderSettings,
} from '../../../domain/payments/api-pix/provider-settings.js';
import type { PixProvidersTable } from '../../../domain/payments/api-pix/provider-settings.js';
import {
  ReceivingAccountError,
  accountOfColumns,
} from '../../../domain/payments/api-pix/receiving-account.js';
import type { AccountField } from '../../../domain/payments/api-pix/receiving-account.js';
import { findStore } from '../../../domain/stores/stores.js';
import { keyedRateLimit } from '../../../platform/http/keyed-rate-limit.js';
import { auditRequest } from '../shell/audit-request.js';
import { acceptMultipartForms, uploadedForm } from '../shell/multipart-form.js';
import type { UploadedForm } from '../shell/multipart-form.js';
import { defineScreen, guard, member, sendPage } from '../shell/page.js';
import { PSP_PATH, PspPage } from './psp-view.js';
import type { PspState } from './psp-view.js';
import { noticeOf } from '../shell/notices.js';

const NOTICES = { salvo: 'Configurações do PSP salvas. Teste a conexão.' } as const;
const Query = Type.Object({ aviso: Type.Optional(Type.String({ maxLength: 40 })) });
const CsrfBody = Type.Object({ _csrf: Type.Optional(Type.String()) });

/** The certificate service's refusals, as an owner reads them. */
const CERTIFICATE_MESSAGES: [RegExp, string][] = [
  [/not a readable X\.509/, 'O certificado não pôde ser lido (envie um PEM).'],
  [/private key is not readable/, 'A chave privada não pôde ser lida (envie um PEM sem senha).'],
  [/does not match the private key/, 'O certificado não corresponde à chave privada.'],
  [/expired on/, 'O certificado já expirou.'],
  [/PKCS#12/, 'O arquivo PKCS#12 não pôde ser aberto: confira o arquivo e a senha.'],
];

/** The receiving account's refusals (the CLI's words name its options). */
const ACCOUNT_MESSAGES: Record<AccountField, string> = {
  account:
    'Informe a conta e o tipo de conta juntos. A conta tem até 20 caracteres: números e, se houver, "-" e o dígito (12345-6).',
  account_type: 'Escolha o tipo de conta: corrente, poupança ou de pagamento.',
  branch: 'A agência tem de 1 a 4 números, sem o dígito.',
};

/** "Testar conexão" a minute per store: each one makes the service connect where the owner said. */
const CONNECTION_TESTS_PER_MINUTE = 10;

/**
 * Why the test failed, in fixed words: the PSP URLs are the owner's, so nothing the far end sent (nor
 * the address it resolved to) is shown; the full error goes to the operator's log.
 */
function connectionTestFailure(error: ProviderError): { message: string; audit: string } {
  if (error.blockedAddress) {
    return {
      message:
        'Endereço do PSP não permitido: a URL base e a URL do token precisam apontar para um endereço público da internet.',
      audit: 'falhou: endereço não permitido',
    };
  }
  if (error.pspStatus === null) {
    return {
      message:
        'Não foi possível conectar ao PSP: confira a URL base, a URL do token e o certificado (e se o PSP aceita este certificado).',
      audit: 'falhou: sem resposta do PSP',
    };
  }
  return {
    message: `O PSP recusou o pedido (HTTP ${error.pspStatus}): confira o Client ID, o Client secret, o certificado e as permissões da aplicação no PSP.`,
    audit: `falhou: o PSP respondeu HTTP ${error.pspStatus}`,
  };
}

function certificateMessage(error: CertificateError): string {
  return (
    CERTIFICATE_MESSAGES.find(([pattern]) => pattern.test(error.message))?.[1] ??
    `Certificado recusado: ${error.message}`
  );
}

/** Either a PEM pair or a PKCS#12 file (with its passphrase), as the CLI's `pix-provider set` takes. */
function identityOf(form: UploadedForm): ClientIdentity | string {
  const { certificate, private_key: key, pfx } = form.files;
  if (pfx) {
    if (certificate || key) return 'Envie o certificado e a chave em PEM, ou o PKCS#12, não os dois.';
    const passphrase = form.fields.passphrase;
    return { pfx, passphrase: passphrase ? passphrase : null };
  }
  if (!certificate || !key) return 'Envie o certificado e a chave privada (PEM), ou um arquivo PKCS#12.';
  return { certPem: certificate.toString('utf8'), keyPem: key.toString('utf8') };
}

/** The receiving account as the audit log names it. */
function accountDetail(row: PixProvidersTable): string {
  const account = accountOfColumns(row);
  if (account === null) return 'sem conta recebedora';
  const branch = account.branch === null ? '' : `agência ${account.branch}, `;
  return `conta recebedora: ${branch}conta ${account.number} (${account.type})`;
}

/**
 * Configurações › PSP (owners only): the live Pix provider's status, "Testar conexão" (the CLI's
 * `pix-provider check`) and its settings, checked and sealed by the CLI's `pix-provider set` service.
 */
export const pspScreen = defineScreen('psp', async (app, services) => {
  const { db, config } = app;
  const secretBox = createSecretBox(config.secret);
  const connectionTests = keyedRateLimit(
    'psp-connection-tests',
    CONNECTION_TESTS_PER_MINUTE,
    services.redis,
    app.log,
  );
  app.addHook('onClose', async () => connectionTests.close());
  acceptMultipartForms(app);

  async function show(request: FastifyRequest, reply: FastifyReply, state: PspState, status = 200) {
    const { storeId } = member(request);
    const [row, store] = await Promise.all([findProviderSettings(db, storeId), findStore(db, storeId)]);
    return sendPage(request, reply, services, {
      title: 'PSP (Pix em produção)',
      nav: 'settings',
      status,
      body: (
        <PspPage provider={row ? describeProvider(row) : null} hasPixKey={!!store?.pix_key} state={state} />
      ),
    });
  }

  app.get('/configuracoes/psp', guard('owner', { querystring: Query }), async (request, reply) => {
    const key = request.query.aviso;
    return show(request, reply, { notice: noticeOf(NOTICES, key) });
  });

  app.post('/configuracoes/psp', guard('owner'), async (request, reply) => {
    const { storeId } = member(request);
    const form = uploadedForm(request);
    const values = {
      base_url: form.fields.base_url ?? '',
      token_url: form.fields.token_url ?? '',
      client_id: form.fields.client_id ?? '',
      account_branch: form.fields.account_branch ?? '',
      account_number: form.fields.account_number ?? '',
      account_type: form.fields.account_type ?? '',
    };
    const refuse = (error: string) => show(request, reply, { error, values }, 400);
    const identity = identityOf(form);
    if (typeof identity === 'string') return refuse(identity);
    try {
      await db.transaction().execute(async (trx) => {
        const saved = await saveProviderSettings(trx, secretBox, {
          storeId,
          baseUrl: values.base_url,
          tokenUrl: values.token_url.trim() === '' ? undefined : values.token_url,
          clientId: values.client_id,
          clientSecret: form.fields.client_secret ?? '',
          identity,
          caPem: form.files.ca?.toString('utf8'),
          account: {
            account: values.account_number,
            accountType: values.account_type,
            branch: values.account_branch,
          },
        });
        await auditRequest(
          trx,
          request,
          'psp_settings_changed',
          `${saved.base_url}; client id ${saved.client_id}; certificado ${saved.certificate_subject}; ${accountDetail(saved)}`,
        );
      });
    } catch (error) {
      if (error instanceof ReceivingAccountError) return refuse(ACCOUNT_MESSAGES[error.field]);
      if (error instanceof CertificateError) return refuse(certificateMessage(error));
      const message = (error as Error).message;
      if (/base-url|token-url/.test(message))
        return refuse('A URL base e a URL do token precisam ser endereços https://.');
      if (/no Pix key/.test(message)) return refuse('Cadastre antes a chave Pix da loja em Configurações.');
      if (/must not be empty/.test(message)) return refuse('Preencha o Client ID e o Client secret.');
      throw error;
    }
    return reply.redirect(`${PSP_PATH}?aviso=salvo`, 303);
  });

  app.post('/configuracoes/psp/testar', guard('owner', { body: CsrfBody }), async (request, reply) => {
    const { storeId } = member(request);
    const row = await findProviderSettings(db, storeId);
    if (!row) return show(request, reply, { error: 'O PSP ainda não foi configurado.' }, 400);
    const wait = await connectionTests.consume(storeId);
    if (wait !== null) {
      reply.header('retry-after', String(wait));
      const error = `Muitos testes de conexão em pouco tempo. Tente de novo em ${wait} segundo(s).`;
      return show(request, reply, { error }, 429);
    }
    const target = `${row.base_url} (token: ${row.token_url})`;
    try {
      const charges = await checkProvider(app.payments, storeId);
      await auditRequest(db, request, 'psp_connection_tested', `${target}: funcionando`);
      return show(request, reply, {
        notice: `Conexão com o PSP funcionando: token obtido e ${charges} cobrança(s) no último minuto.`,
      });
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      request.log.warn({ storeId, reason: error.message }, 'PSP connection test failed');
      const failure = connectionTestFailure(error);
      await auditRequest(db, request, 'psp_connection_tested', `${target}: ${failure.audit}`);
      return show(request, reply, { error: failure.message }, 502);
    }
  });
});
