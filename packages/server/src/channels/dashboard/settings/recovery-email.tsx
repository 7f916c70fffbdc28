import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  DEFAULT_RECOVERY_BODY,
  DEFAULT_RECOVERY_SUBJECT,
} from '../../../domain/kernel/recovery-email-defaults.js';
import { ApiError } from '../../../platform/http/api-error.js';
import { bodyValidator } from '../../../platform/http/body-validator.js';
import {
  MAX_RECOVERY_DELAY_MINUTES,
  MIN_RECOVERY_DELAY_MINUTES,
  toStore,
  UpdateStoreBody,
} from '../../../domain/stores/store-object.js';
import { storeSettingsChanges, updateStoreSettings } from '../../../domain/stores/store-settings.js';
import { findStore } from '../../../domain/stores/stores.js';
import type { StoresTable } from '../../../domain/stores/stores.js';
import { auditRequest } from '../../../domain/accounts/audit.js';
import { guard, member } from '../shell/page.js';
import type { DashboardApp } from '../shell/page.js';
import type { DashboardServices } from '../shell/services.js';
import { Field, Notice, PostForm, Section, TextAreaField } from '../views/components.js';

/**
 * Configurações › "E-mail de pedido abandonado": the store's `recovery_email`, changed by owners
 * through the same service and schema as `PATCH /store`.
 */

export const RECOVERY_EMAIL_SAVED = 'E-mail de pedido abandonado salvo.';
const ACTION = '/dashboard/configuracoes/recuperacao';
const SUBJECT_MAX = 200;
const BODY_MAX = 10_000;

/** The placeholders the e-mail's subject and text may use (docs/orders.md). */
/** PATCH /store's own body check: the form refuses what the API refuses, for the same reasons. */
const validStoreBody = bodyValidator(UpdateStoreBody);

const PLACEHOLDERS = '{{nome}}, {{produto}}, {{valor}}, {{link_pagamento}} e {{loja}}';

/** Bounds here only keep junk out; the rules are `PATCH /store`'s schema, applied below. */
const RecoveryEmailForm = Type.Object({
  enabled: Type.Optional(Type.String({ maxLength: 10 })),
  delay_minutes: Type.String({ maxLength: 100 }),
  subject: Type.String({ maxLength: 4 * SUBJECT_MAX }),
  body: Type.String({ maxLength: 4 * BODY_MAX }),
  _csrf: Type.Optional(Type.String()),
});

/** Which field a refusal of the API's schema names, in the form's words. */
const FIELD_MESSAGES: Record<string, string> = {
  'recovery_email.delay_minutes': `Use um número inteiro de ${MIN_RECOVERY_DELAY_MINUTES} a ${MAX_RECOVERY_DELAY_MINUTES} minutos (7 dias).`,
  'recovery_email.subject': `O assunto precisa ter de 1 a ${SUBJECT_MAX} caracteres, com algum texto visível.`,
  'recovery_email.body': `O texto precisa ter de 1 a ${BODY_MAX.toLocaleString('pt-BR')} caracteres, com algum texto visível.`,
};

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

/** Browsers send a textarea's line breaks as CRLF; the e-mail is kept with LF, as the API takes it. */
const lines = (text: string) => text.replace(/\r\n?/g, '\n');

/** The default wording is kept as "none written" (null), so a later default reaches the store too. */
const ownOrDefault = (text: string, fallback: string) => (text === fallback ? null : text);

/** What changed, for the audit log (the texts only as "alterado": they can be long). */
function describeChanges(before: StoresTable, set: Partial<StoresTable>): string[] {
  const yes = (value: number) => (value === 1 ? 'sim' : 'não');
  const changes: string[] = [];
  if (
    set.recovery_email_enabled !== undefined &&
    set.recovery_email_enabled !== before.recovery_email_enabled
  )
    changes.push(`ativado: ${yes(before.recovery_email_enabled)} → ${yes(set.recovery_email_enabled)}`);
  if (
    set.recovery_email_delay_minutes !== undefined &&
    set.recovery_email_delay_minutes !== before.recovery_email_delay_minutes
  )
    changes.push(`atraso: ${before.recovery_email_delay_minutes} → ${set.recovery_email_delay_minutes} min`);
  if (
    set.recovery_email_subject !== undefined &&
    set.recovery_email_subject !== before.recovery_email_subject
  )
    changes.push('assunto alterado');
  if (set.recovery_email_body !== undefined && set.recovery_email_body !== before.recovery_email_body)
    changes.push('texto alterado');
  return changes;
}

/** How the settings page answers: shown again with this section's error, or redirected with a notice. */
export interface RecoveryEmailAnswers {
  refuse(request: FastifyRequest, reply: FastifyReply, state: RecoveryEmailState): Promise<FastifyReply>;
  saved(reply: FastifyReply): FastifyReply;
}

/** POST /dashboard/configuracoes/recuperacao (owners). */
export function recoveryEmailRoutes(
  app: DashboardApp,
  services: DashboardServices,
  answers: RecoveryEmailAnswers,
) {
  const { db } = app;
  app.post(
    '/configuracoes/recuperacao',
    guard('owner', { body: RecoveryEmailForm }),
    async (request, reply) => {
      const session = member(request);
      const form = request.body;
      const values = {
        enabled: form.enabled === 'on' ? 'on' : '',
        delay_minutes: form.delay_minutes,
        subject: form.subject,
        body: form.body,
      };
      const delay = form.delay_minutes.trim();
      const body = {
        recovery_email: {
          enabled: form.enabled === 'on',
          // Not a whole number: the schema refuses the text as it refuses a wrong type in JSON.
          delay_minutes: /^[0-9]{1,9}$/.test(delay) ? Number(delay) : delay,
          subject: ownOrDefault(form.subject.trim(), DEFAULT_RECOVERY_SUBJECT),
          body: ownOrDefault(lines(form.body), DEFAULT_RECOVERY_BODY),
        },
      };
      const store = (await findStore(db, session.storeId))!;
      let set: Partial<StoresTable>;
      try {
        set = storeSettingsChanges(store, validStoreBody(body), services.secretBox);
      } catch (error) {
        if (!(error instanceof ApiError) || error.statusCode !== 400) throw error;
        const message = FIELD_MESSAGES[error.param ?? ''] ?? 'Confira os campos do e-mail.';
        return answers.refuse(request, reply, { error: message, values });
      }
      const changes = describeChanges(store, set);
      await db.transaction().execute(async (trx) => {
        await updateStoreSettings(trx, store, set);
        if (changes.length > 0)
          await auditRequest(trx, request, 'recovery_email_changed', changes.join('; '));
      });
      return answers.saved(reply);
    },
  );
}
