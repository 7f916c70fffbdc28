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
    let row;
    try {
      row = await saveProviderSettings(db, secretBox, {
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
    await auditRequest(
      db,
      request,
      'psp_settings_changed',
      `${row.base_url}; client id ${row.client_id}; certificado ${row.certificate_subject}; ${accountDetail(row)}`,
    );
    return reply.redirect(`${PSP_PATH}?aviso=salvo`, 303);
  });

  app.post('/configuracoes/psp/testar', guard('owner', { body: CsrfBody }), async (request, reply) => {
    const { storeId } = member(request);
    if (!(await findProviderSettings(db, storeId)))
      return show(request, reply, { error: 'O PSP ainda não foi configurado.' }, 400);
    try {
      const charges = await checkProvider(app.payments, storeId);
      return show(request, reply, {
        notice: `Conexão com o PSP funcionando: token obtido e ${charges} cobrança(s) no último minuto.`,
      });
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      return show(request, reply, { error: `O PSP recusou a conexão: ${error.message}` }, 502);
    }
  });
});
