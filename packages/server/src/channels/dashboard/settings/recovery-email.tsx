import {
  MAX_RECOVERY_DELAY_MINUTES,
  MIN_RECOVERY_DELAY_MINUTES,
  toStore,
} from '../../../domain/stores/store-object.js';
import type { StoresTable } from '../../../domain/stores/stores.js';
import { Field, Notice, PostForm, Section, TextAreaField } from '../views/components.js';

/**
 * Configurações › "E-mail de pedido abandonado": the store's `recovery_email`, as a form for owners
 * (saved by recovery-email-routes.ts) and in words for everyone else.
 */

const ACTION = '/dashboard/configuracoes/recuperacao';
export const SUBJECT_MAX = 200;
export const BODY_MAX = 10_000;

/** The placeholders the e-mail's subject and text may use (docs/orders.md). */
const PLACEHOLDERS = '{{nome}}, {{produto}}, {{valor}}, {{link_pagamento}} e {{loja}}';

export interface RecoveryEmailState {
  error?: string | undefined;
  /** What was typed into a refused form, shown back. */
  values?: Record<string, string> | undefined;
}

/**
 * The section: a form for owners, the settings in words for everyone else. The subject and text show
 * the default wording when the store has not written its own.
 */
export function RecoveryEmailSection(props: {
  store: StoresTable;
  owner: boolean;
  state: RecoveryEmailState;
}) {
  const current = toStore(props.store).recovery_email;
  if (!props.owner) {
    return (
      <Section title="E-mail de pedido abandonado" id="recuperacao">
        <dl class="facts">
          <dt>Situação</dt>
          <dd>{current.enabled ? 'Ativado' : 'Desativado'}</dd>
          <dt>Enviado depois de</dt>
          <dd>{current.delay_minutes} minutos</dd>
        </dl>
      </Section>
    );
  }
  const values = props.state.values;
  const enabled = values ? values.enabled === 'on' : current.enabled;
  return (
    <Section title="E-mail de pedido abandonado" id="recuperacao">
      <p>
        Um e-mail por pedido não pago, enviado depois do tempo escolhido contado do abandono (30 minutos sem
        pagamento). Nunca é enviado se o pedido já foi pago ou cancelado.
      </p>
      {props.state.error ? <Notice kind="error">{props.state.error}</Notice> : null}
      <PostForm action={ACTION} class="stack">
        <div class="field">
          <label class="choice" for="recuperacao-ativado">
            <input type="checkbox" id="recuperacao-ativado" name="enabled" value="on" checked={enabled} />{' '}
            Enviar o e-mail de pedido abandonado
          </label>
        </div>
        <Field
          id="recuperacao-atraso"
          label="Enviar depois de (minutos)"
          name="delay_minutes"
          type="number"
          inputMode="numeric"
          required
          min={MIN_RECOVERY_DELAY_MINUTES}
          max={MAX_RECOVERY_DELAY_MINUTES}
          step={1}
          value={values?.delay_minutes ?? String(current.delay_minutes)}
          hint={`De ${MIN_RECOVERY_DELAY_MINUTES} a ${MAX_RECOVERY_DELAY_MINUTES} minutos (7 dias).`}
        />
        <Field
          id="recuperacao-assunto"
          label="Assunto"
          name="subject"
          required
          maxLength={SUBJECT_MAX}
          value={values?.subject ?? current.subject}
          hint={`Pode usar ${PLACEHOLDERS}.`}
        />
        <TextAreaField
          id="recuperacao-texto"
          label="Texto"
          name="body"
          required
          rows={8}
          maxLength={BODY_MAX}
          value={values?.body ?? current.body}
          hint={`Texto simples. ${PLACEHOLDERS.replace('{{link_pagamento}}', '{{link_pagamento}} (a página do pedido, que gera um novo Pix)')}.`}
        />
        <button type="submit" class="button">
          Salvar e-mail de pedido abandonado
        </button>
      </PostForm>
    </Section>
  );
}
