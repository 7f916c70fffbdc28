import type { describeCardProvider } from '../../../domain/payments/card-settings/card-provider-admin.js';
import {
  CARD_PSP_LABELS,
  CARD_PSPS,
  DEFAULT_CARD_BASE_URLS,
} from '../../../domain/payments/card-settings/card-credentials.js';
import type { InstallmentPolicy } from '../../../domain/kernel/installment-policy.js';
import { formatBrl } from '../../../platform/values/money.js';
import { brlInput } from '../shell/form-values.js';
import {
  CopyField,
  Field,
  Notice,
  PostForm,
  Section,
  SelectField,
  TextAreaField,
} from '../views/components.js';

export const CARDS_PATH = '/dashboard/configuracoes/cartao';

export type CardMode = 'live' | 'test';
export const CARD_MODES: readonly CardMode[] = ['live', 'test'];
export const MODE_LABELS: Record<CardMode, string> = { live: 'Produção', test: 'Teste' };

type ShownProvider = ReturnType<typeof describeCardProvider>;

/** Where a form's answer shows: the installment terms, or one mode's PSP. */
export type CardsSection = 'parcelamento' | CardMode;

export interface CardsState {
  notice?: string | null;
  /** The section the notice or the error is about. */
  section?: CardsSection;
  error?: string | null;
  /** What the person typed (never a secret), kept after a refusal. */
  values?: Record<string, string>;
}

export interface CardsData {
  policy: InstallmentPolicy;
  /** Owners only: each mode's PSP (null: none set); undefined for other roles. */
  providers?: Record<CardMode, ShownProvider | null>;
  canEditPolicy: boolean;
}

const rateInput = (rate: number) => rate.toFixed(2).replace('.', ',');

function Answer(props: { state: CardsState; section: CardsSection }) {
  const { state } = props;
  if (state.section !== props.section) return null;
  if (state.error) return <Notice kind="error">{state.error}</Notice>;
  return state.notice ? <Notice kind="ok">{state.notice}</Notice> : null;
}

function PolicySection(props: { data: CardsData; state: CardsState }) {
  const { policy } = props.data;
  const values = props.state.section === 'parcelamento' ? (props.state.values ?? {}) : {};
  return (
    <Section title="Parcelamento" id="parcelamento">
      <Answer state={props.state} section="parcelamento" />
      <p class="hint">
        Valem para o Pagar.me e o cartão de teste. O Mercado Pago calcula as próprias parcelas, limitadas ao
        máximo daqui.
      </p>
      {props.data.canEditPolicy ? (
        <PostForm action={`${CARDS_PATH}/parcelamento`} class="stack">
          <Field
            label="Máximo de parcelas"
            name="max_installments"
            inputMode="numeric"
            required
            value={values.max_installments ?? String(policy.maxInstallments)}
            hint="De 1 a 12."
          />
          <Field
            label="Parcelas sem juros"
            name="interest_free_installments"
            inputMode="numeric"
            required
            value={values.interest_free_installments ?? String(policy.interestFreeInstallments)}
            hint="Até quantas parcelas o comprador paga o preço dividido, sem juros: de 1 até o máximo de parcelas."
          />
          <Field
            label="Juros ao mês (%)"
            name="monthly_interest_rate"
            inputMode="decimal"
            required
            value={values.monthly_interest_rate ?? rateInput(policy.monthlyInterestRate)}
            hint="Cobrados nas parcelas com juros (Tabela Price): de 0 a 10, com até 2 casas decimais, como 2,99. Com 0, todas as parcelas ficam sem juros."
          />
          <Field
            label="Parcela mínima (R$)"
            name="min_installment_amount"
            inputMode="decimal"
            required
            value={values.min_installment_amount ?? brlInput(policy.minInstallmentCents / 100)}
            hint="Parcelas menores não são oferecidas (à vista sempre é). De 1,00 a 1.000.000,00."
          />
          <button type="submit" class="button">
            Salvar parcelamento
          </button>
        </PostForm>
      ) : (
        <dl class="facts">
          <dt>Máximo de parcelas</dt>
          <dd>{policy.maxInstallments}</dd>
          <dt>Parcelas sem juros</dt>
          <dd>{policy.interestFreeInstallments}</dd>
          <dt>Juros ao mês</dt>
          <dd>{rateInput(policy.monthlyInterestRate)}%</dd>
          <dt>Parcela mínima</dt>
          <dd>{formatBrl(policy.minInstallmentCents)}</dd>
        </dl>
      )}
    </Section>
  );
}

/** One mode's PSP: its status (never a secret), the notification URL, "Testar conexão", the form. */
function ProviderSection(props: { mode: CardMode; provider: ShownProvider | null; state: CardsState }) {
  const { mode, provider } = props;
  const values = props.state.section === mode ? (props.state.values ?? {}) : {};
  const label = MODE_LABELS[mode];
  return (
    <Section title={`PSP de cartão: ${label}`} id={mode}>
      <Answer state={props.state} section={mode} />
      {provider ? (
        <>
          <dl class="facts">
            <dt>PSP</dt>
            <dd>{CARD_PSP_LABELS[provider.provider]}</dd>
            <dt>Chave pública</dt>
            <dd>{provider.public_key}</dd>
            <dt>URL base</dt>
            <dd>{provider.base_url}</dd>
          </dl>
          <CopyField
            label="URL de notificação"
            id={`notificacao-${mode}`}
            value={provider.webhook_url}
            hint="Cole este endereço nas configurações de webhooks (notificações) do PSP."
          />
          <PostForm action={`${CARDS_PATH}/testar`} class="inline-form">
            <input type="hidden" name="mode" value={mode} />
            <button type="submit" class="button">
              Testar conexão
            </button>
          </PostForm>
          <PostForm action={`${CARDS_PATH}/remover`} class="inline-form">
            <input type="hidden" name="mode" value={mode} />
            <button type="submit" class="button button-danger">
              Remover PSP de {label.toLowerCase()}
            </button>
          </PostForm>
        </>
      ) : (
        <p>
          {mode === 'live'
            ? 'Nenhum PSP de cartão em produção: a loja não aceita cartão de verdade.'
            : 'Nenhum PSP de cartão em teste: o modo Teste usa o cartão simulado.'}
        </p>
      )}
      <PostForm action={CARDS_PATH} class="stack">
        <input type="hidden" name="mode" value={mode} />
        <SelectField
          label="PSP"
          name="provider"
          id={`f-provider-${mode}`}
          value={values.provider ?? provider?.provider ?? 'mercadopago'}
          options={CARD_PSPS.map((psp) => ({ value: psp, label: CARD_PSP_LABELS[psp] }))}
        />
        <Field
          label="Chave pública"
          name="public_key"
          id={`f-public-key-${mode}`}
          required
          maxLength={500}
          value={values.public_key ?? provider?.public_key ?? ''}
          hint={
            mode === 'live'
              ? 'Mercado Pago: começa com APP_USR-. Pagar.me: começa com pk_.'
              : 'Mercado Pago: começa com TEST-. Pagar.me: começa com pk_test_.'
          }
        />
        <Field
          label="Access token (Mercado Pago) ou chave secreta (Pagar.me)"
          name="secret"
          id={`f-secret-${mode}`}
          type="password"
          autoComplete="off"
          maxLength={500}
          required={!provider}
          hint={
            provider
              ? 'Guardado de forma cifrada e nunca exibido. Deixe em branco para manter o atual (mesmo PSP).'
              : 'Guardado de forma cifrada e nunca exibido.'
          }
        />
        <Field
          label="Segredo do webhook (Mercado Pago, opcional)"
          name="webhook_secret"
          id={`f-webhook-secret-${mode}`}
          type="password"
          autoComplete="off"
          maxLength={500}
          hint="A assinatura secreta dos webhooks do Mercado Pago: com ela, notificações sem assinatura válida são recusadas. Deixe em branco para manter o atual."
        />
        <Field
          label="URL base (opcional)"
          name="base_url"
          id={`f-base-url-${mode}`}
          type="url"
          maxLength={500}
          value={
            values.base_url ??
            (provider && provider.base_url !== DEFAULT_CARD_BASE_URLS[provider.provider]
              ? provider.base_url
              : '')
          }
          hint="Só se o PSP indicar outro endereço: por padrão https://api.mercadopago.com ou https://api.pagar.me/core/v5."
        />
        <TextAreaField
          label="CA do PSP (PEM, opcional)"
          name="ca_pem"
          id={`f-ca-${mode}`}
          rows={3}
          value={values.ca_pem ?? ''}
          hint="Só se o certificado do servidor do PSP não for de uma autoridade pública. Deixe em branco para manter a atual (mesmo PSP)."
        />
        <button type="submit" class="button">
          Salvar PSP de {label.toLowerCase()}
        </button>
      </PostForm>
    </Section>
  );
}

/** Configurações › Cartão de crédito: the installment terms (editors), each mode's PSP (owners). */
export function CardsPage(props: { data: CardsData; state: CardsState }) {
  const { providers } = props.data;
  return (
    <>
      <p>
        <a href="/dashboard/configuracoes">Voltar para Configurações</a>
      </p>
      <PolicySection data={props.data} state={props.state} />
      {providers
        ? CARD_MODES.map((mode) => (
            <ProviderSection mode={mode} provider={providers[mode]} state={props.state} />
          ))
        : null}
    </>
  );
}
