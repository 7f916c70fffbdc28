import type { describeProvider } from '../../../domain/payments/api-pix/provider-admin.js';
import type { AccountType } from '../../../domain/payments/api-pix/receiving-account.js';
import { Field, Notice, PostForm, Section, SelectField, DateTime } from '../views/components.js';

export const PSP_PATH = '/dashboard/configuracoes/psp';

export interface PspState {
  notice?: string | null;
  error?: string | null;
  /** What the person typed (never a secret), kept after a refusal. */
  values?: {
    base_url?: string;
    token_url?: string;
    client_id?: string;
    account_branch?: string;
    account_number?: string;
    account_type?: string;
  };
}

const ACCOUNT_TYPE_LABELS: Record<AccountType, string> = {
  corrente: 'Conta corrente',
  poupanca: 'Conta poupança',
  pagamento: 'Conta de pagamento',
};

type Provider = ReturnType<typeof describeProvider>;

/** "Agência 0001, conta 12345-6 (Conta corrente)", or why there is none. */
function accountText(account: Provider['receiving_account']): string {
  if (account === null) return 'não informada: assinaturas em produção são recusadas';
  const branch = account.branch === null ? '' : `Agência ${account.branch}, `;
  return `${branch}conta ${account.number} (${ACCOUNT_TYPE_LABELS[account.type]})`;
}

/** The PSP's status (never a secret), "Testar conexão" and the settings form with uploads. */
export function PspPage(props: { provider: Provider | null; hasPixKey: boolean; state: PspState }) {
  const { provider, state } = props;
  return (
    <>
      <p>
        <a href="/dashboard/configuracoes">Voltar para Configurações</a>
      </p>
      {state.notice ? <Notice kind="ok">{state.notice}</Notice> : null}
      {state.error ? <Notice kind="error">{state.error}</Notice> : null}
      <Section title="Situação" id="situacao">
        {provider ? (
          <>
            <dl class="facts">
              <dt>URL base</dt>
              <dd>{provider.base_url}</dd>
              <dt>URL do token</dt>
              <dd>{provider.token_url}</dd>
              <dt>Client ID</dt>
              <dd>{provider.client_id}</dd>
              <dt>Certificado</dt>
              <dd>{provider.certificate.subject}</dd>
              <dt>Válido até</dt>
              <dd>
                <DateTime iso={provider.certificate.not_after} />
              </dd>
              <dt>Conta recebedora</dt>
              <dd>{accountText(provider.receiving_account)}</dd>
              <dt>Webhook no PSP</dt>
              <dd>
                {provider.webhook_registered_at ? (
                  <>
                    registrado em <DateTime iso={provider.webhook_registered_at} />
                  </>
                ) : (
                  'não registrado'
                )}
              </dd>
            </dl>
            <PostForm action={`${PSP_PATH}/testar`}>
              <button type="submit" class="button">
                Testar conexão
              </button>
            </PostForm>
          </>
        ) : (
          <p>O PSP ainda não foi configurado: a loja só cobra em modo Teste.</p>
        )}
      </Section>
      <Section title="Configurações do PSP" id="configurar">
        {props.hasPixKey ? null : <p class="hint">Antes, cadastre a chave Pix da loja em Configurações.</p>}
        <PostForm action={PSP_PATH} class="stack" enctype="multipart/form-data">
          <Field
            label="URL base"
            name="base_url"
            type="url"
            required
            value={state.values?.base_url ?? provider?.base_url ?? ''}
            hint="O endereço https da API Pix do PSP, por exemplo https://pix.exemplo.com.br/v2."
          />
          <Field
            label="URL do token (opcional)"
            name="token_url"
            type="url"
            value={state.values?.token_url ?? provider?.token_url ?? ''}
            hint="Se o PSP não usa <URL base>/oauth/token."
          />
          <Field
            label="Client ID"
            name="client_id"
            required
            value={state.values?.client_id ?? provider?.client_id ?? ''}
          />
          <Field label="Client secret" name="client_secret" type="password" required autoComplete="off" />
          <fieldset class="stack">
            <legend>Certificado do cliente: PEM (certificado e chave) ou PKCS#12</legend>
            <Field label="Certificado (PEM)" name="certificate" type="file" accept=".pem,.crt,.cer" />
            <Field label="Chave privada (PEM)" name="private_key" type="file" accept=".pem,.key" />
            <Field label="Arquivo PKCS#12" name="pfx" type="file" accept=".p12,.pfx" />
            <Field label="Senha do PKCS#12" name="passphrase" type="password" autoComplete="off" />
          </fieldset>
          <fieldset class="stack">
            <legend>Conta recebedora das assinaturas (Pix Automático)</legend>
            <p class="hint">
              A conta no PSP em que cada cobrança de assinatura é paga. Sem ela, assinaturas em produção são
              recusadas.
            </p>
            <Field
              label="Agência"
              name="account_branch"
              inputMode="numeric"
              maxLength={4}
              value={state.values?.account_branch ?? provider?.receiving_account?.branch ?? ''}
              hint="Até 4 números, sem o dígito. Deixe em branco se a conta não tem agência."
            />
            <Field
              label="Conta"
              name="account_number"
              maxLength={20}
              value={state.values?.account_number ?? provider?.receiving_account?.number ?? ''}
              hint="Números e, se houver, o dígito depois de um hífen: 12345-6."
            />
            <SelectField
              label="Tipo de conta"
              name="account_type"
              value={state.values?.account_type ?? provider?.receiving_account?.type ?? ''}
              options={[
                { value: '', label: 'Sem conta recebedora' },
                ...Object.entries(ACCOUNT_TYPE_LABELS).map(([value, label]) => ({ value, label })),
              ]}
            />
          </fieldset>
          <Field
            label="CA do PSP (PEM, opcional)"
            name="ca"
            type="file"
            accept=".pem,.crt"
            hint="Só se o certificado do servidor do PSP não for de uma autoridade pública."
          />
          <button type="submit" class="button">
            Salvar configurações do PSP
          </button>
        </PostForm>
      </Section>
    </>
  );
}
