import { Type } from '@sinclair/typebox';
import {
  DEFAULT_RECOVERY_BODY,
  DEFAULT_RECOVERY_SUBJECT,
} from '../../../domain/kernel/recovery-email-defaults.js';
import { ApiError } from '../../../platform/http/api-error.js';
import { bodyValidator } from '../../../platform/http/body-validator.js';
import {
  MAX_RECOVERY_DELAY_MINUTES,
  MIN_RECOVERY_DELAY_MINUTES,
  UpdateStoreBody,
} from '../../../domain/stores/store-object.js';
import { storeSettingsChanges, updateStoreSettings } from '../../../domain/stores/store-settings.js';
import { findStore } from '../../../domain/stores/stores.js';
import type { StoresTable } from '../../../domain/stores/stores.js';
import { auditRequest } from '../shell/audit-request.js';
import { guard, member } from '../shell/page.js';
import { BODY_MAX, SUBJECT_MAX } from './recovery-email.js';
import { Csrf } from './settings-answers.js';
import type { SectionRoutes } from './settings-answers.js';

/** PATCH /store's own body check: the form refuses what the API refuses, for the same reasons. */
const validStoreBody = bodyValidator(UpdateStoreBody);

/** Bounds here only keep junk out; the rules are `PATCH /store`'s schema, applied below. */
const RecoveryEmailForm = Type.Object({
  enabled: Type.Optional(Type.String({ maxLength: 10 })),
  delay_minutes: Type.String({ maxLength: 100 }),
  subject: Type.String({ maxLength: 4 * SUBJECT_MAX }),
  body: Type.String({ maxLength: 4 * BODY_MAX }),
  ...Csrf,
});

/** Which field a refusal of the API's schema names, in the form's words. */
const FIELD_MESSAGES: Record<string, string> = {
  'recovery_email.delay_minutes': `Use um número inteiro de ${MIN_RECOVERY_DELAY_MINUTES} a ${MAX_RECOVERY_DELAY_MINUTES} minutos (7 dias).`,
  'recovery_email.subject': `O assunto precisa ter de 1 a ${SUBJECT_MAX} caracteres, com algum texto visível.`,
  'recovery_email.body': `O texto precisa ter de 1 a ${BODY_MAX.toLocaleString('pt-BR')} caracteres, com algum texto visível.`,
};

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

/**
 * E-mail de pedido abandonado (owners): the store's `recovery_email`, through the same service and
 * schema as `PATCH /store`.
 */
export const recoveryEmailRoutes: SectionRoutes = (app, { secretBox }, { show, done }) => {
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
        set = storeSettingsChanges(store, validStoreBody(body), secretBox);
      } catch (error) {
        if (!(error instanceof ApiError) || error.statusCode !== 400) throw error;
        const message = FIELD_MESSAGES[error.param ?? ''] ?? 'Confira os campos do e-mail.';
        return show(request, reply, { recoveryEmail: { error: message, values } }, 400);
      }
      const changes = describeChanges(store, set);
      await db.transaction().execute(async (trx) => {
        await updateStoreSettings(trx, store, set);
        if (changes.length > 0)
          await auditRequest(trx, request, 'recovery_email_changed', changes.join('; '));
      });
      return done(reply, 'recuperacao', 'recuperacao');
    },
  );
};
