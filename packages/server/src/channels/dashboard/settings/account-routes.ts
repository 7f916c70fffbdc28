import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { SecretBoxError } from '../../../platform/values/secret-box.js';
import { GateFullError } from '../../../platform/concurrency/work-gate.js';
import { renderQrPng } from '../../../platform/brcode/index.js';
import { auditEveryStore } from '../../../domain/accounts/audit.js';
import type { AuditAction } from '../../../domain/accounts/audit.js';
import { hashPassword, passwordProblem, verifyPassword } from '../../../domain/accounts/passwords.js';
import { endOtherSessions } from '../../../domain/accounts/sessions.js';
import { matchTotp, newTotpSecret, totpUri } from '../../../domain/accounts/totp.js';
import { findUser } from '../../../domain/accounts/users.js';
import { guard, member } from '../shell/page.js';
import { Csrf } from './settings-answers.js';
import type { SectionRoutes } from './settings-answers.js';

const PasswordBody = Type.Object({
  current: Type.String({ maxLength: 1000 }),
  password: Type.String({ maxLength: 1000 }),
  confirmation: Type.String({ maxLength: 1000 }),
  ...Csrf,
});
const TotpConfirmBody = Type.Object({
  setup: Type.String({ maxLength: 1000 }),
  code: Type.String({ maxLength: 20 }),
  password: Type.String({ maxLength: 1000 }),
  ...Csrf,
});
const TotpOffBody = Type.Object({ password: Type.String({ maxLength: 1000 }), ...Csrf });

function tooMany(reply: FastifyReply, wait: number): string {
  reply.header('retry-after', String(wait));
  return 'Muitas tentativas com a senha errada. Tente de novo daqui a pouco.';
}

/**
 * Minha conta (every member, for themselves): the password and two-step verification. Each change
 * is in the audit log of every store the person belongs to.
 */
export const accountRoutes: SectionRoutes = (app, { secretBox, throttle }, { show, refuse, done }) => {
  const { db } = app;

  /**
   * A change to the person's own account and its entry in the audit log of every store they belong
   * to, in one transaction.
   */
  const changeAccount = (
    request: FastifyRequest,
    action: AuditAction,
    change: (trx: Kysely<Database>) => Promise<unknown>,
  ) =>
    db.transaction().execute(async (trx) => {
      await change(trx);
      const session = member(request);
      await auditEveryStore(trx, session.userId, {
        userId: session.userId,
        action,
        detail: session.email,
        ip: request.ip,
      });
    });

  /**
   * The person's password, checked under the login throttle (the attempt taken first, given back
   * when right): a stolen session cannot guess it. A full hashing gate throws GateFullError, which
   * the dashboard answers with 503 and Retry-After.
   */
  async function passwordMatches(request: FastifyRequest, password: string): Promise<boolean | number> {
    const session = member(request);
    const wait = await throttle.attempt(request.ip, session.email);
    if (wait !== null) return wait;
    const user = await findUser(db, session.userId);
    let right: boolean;
    try {
      right = user?.password_hash ? await verifyPassword(password, user.password_hash, request.ip) : false;
    } catch (error) {
      if (error instanceof GateFullError) await throttle.succeeded(request.ip, session.email);
      throw error;
    }
    if (right) await throttle.succeeded(request.ip, session.email);
    return right;
  }

  app.post('/configuracoes/conta/senha', guard('viewer', { body: PasswordBody }), async (request, reply) => {
    const session = member(request);
    const { current, password, confirmation } = request.body;
    const matches = await passwordMatches(request, current);
    if (typeof matches === 'number')
      return refuse(request, reply, 'password', tooMany(reply, matches), {}, 429);
    if (!matches) return refuse(request, reply, 'password', 'Senha atual incorreta.');
    const problem =
      passwordProblem(password) ??
      (password === confirmation ? null : 'As duas senhas novas não são iguais.');
    if (problem) return refuse(request, reply, 'password', problem);
    const passwordHash = await hashPassword(password, request.ip);
    await changeAccount(request, 'password_changed', async (trx) => {
      await trx
        .updateTable('users')
        .set({ password_hash: passwordHash })
        .where('id', '=', session.userId)
        .execute();
      await endOtherSessions(trx, session.userId, session.idHash);
    });
    return done(reply, 'senha', 'minha-conta');
  });

  /** The setup step: a new secret, shown with its QR, carried sealed to the confirmation. */
  async function totpSetup(request: FastifyRequest, secret: string) {
    const session = member(request);
    const uri = totpUri(secret, session.email, 'Storefront');
    return {
      secret,
      uri,
      qrBase64: (await renderQrPng(uri)).base64,
      sealed: secretBox.seal(secret, `totp-setup:${session.userId}`),
    };
  }

  app.post('/configuracoes/conta/duas-etapas/configurar', guard('viewer'), async (request, reply) =>
    show(request, reply, { totpSetup: await totpSetup(request, newTotpSecret()) }),
  );

  app.post(
    '/configuracoes/conta/duas-etapas/ativar',
    guard('viewer', { body: TotpConfirmBody }),
    async (request, reply) => {
      const session = member(request);
      let secret: string;
      try {
        secret = secretBox.open(request.body.setup, `totp-setup:${session.userId}`);
      } catch (error) {
        if (!(error instanceof SecretBoxError)) throw error;
        return refuse(request, reply, 'twoStep', 'Configuração inválida. Comece de novo.');
      }
      // The password first: a session left open (or stolen) cannot tie the account to another phone.
      const matches = await passwordMatches(request, request.body.password);
      if (typeof matches === 'number')
        return refuse(request, reply, 'twoStep', tooMany(reply, matches), {}, 429);
      const step = matches ? matchTotp(secret, request.body.code, null) : null;
      if (step === null) {
        const error = matches ? 'Código incorreto. Tente de novo.' : 'Senha incorreta.';
        return show(
          request,
          reply,
          { totpSetup: await totpSetup(request, secret), errors: { twoStep: error } },
          400,
        );
      }
      await changeAccount(request, 'totp_enabled', (trx) =>
        trx
          .updateTable('users')
          .set({ totp_secret_sealed: secretBox.seal(secret, session.userId), totp_last_step: step })
          .where('id', '=', session.userId)
          .execute(),
      );
      return done(reply, 'duas-etapas-ativada', 'minha-conta');
    },
  );

  app.post(
    '/configuracoes/conta/duas-etapas/desativar',
    guard('viewer', { body: TotpOffBody }),
    async (request, reply) => {
      const session = member(request);
      const matches = await passwordMatches(request, request.body.password);
      if (typeof matches === 'number')
        return refuse(request, reply, 'twoStep', tooMany(reply, matches), {}, 429);
      if (!matches) return refuse(request, reply, 'twoStep', 'Senha incorreta.');
      await changeAccount(request, 'totp_disabled', (trx) =>
        trx
          .updateTable('users')
          .set({ totp_secret_sealed: null, totp_last_step: null })
          .where('id', '=', session.userId)
          .execute(),
      );
      return done(reply, 'duas-etapas-desativada', 'minha-conta');
    },
  );
};
