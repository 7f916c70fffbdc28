import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GateFullError } from '../../../platform/concurrency/work-gate.js';
import { dummyPasswordHash, verifyPassword } from '../../../domain/accounts/passwords.js';
import { matchTotp } from '../../../domain/accounts/totp.js';
import { findUser, findUserByEmail, membershipsOf } from '../../../domain/accounts/users.js';
import { DASHBOARD_PREFIX, LOGIN_PATH } from '../shell/dashboard-plugin.js';
import { defineScreen, guard, sendBarePage } from '../shell/page.js';
import type { DashboardServices } from '../shell/services.js';
import { auditEveryStore } from '../../../domain/accounts/audit.js';
import { startSession } from './sign-in.js';
import { CodeForm, LoginForm } from './login-views.js';

export const WRONG_PAIR = 'E-mail ou senha incorretos.';
const WRONG_CODE = 'Código incorreto ou já usado. Confira o relógio do aparelho e tente de novo.';
const VERIFY_PATH = `${LOGIN_PATH}/verificar`;

const LoginBody = Type.Object({
  email: Type.String({ maxLength: 254 }),
  password: Type.String({ maxLength: 200 }),
  _csrf: Type.Optional(Type.String()),
});
const LoginQuery = Type.Object({ senha: Type.Optional(Type.String({ maxLength: 20 })) });
const CodeBody = Type.Object({ code: Type.String({ maxLength: 20 }), _csrf: Type.Optional(Type.String()) });

function minutes(seconds: number): string {
  const m = Math.ceil(seconds / 60);
  return m === 1 ? '1 minuto' : `${m} minutos`;
}

/** The service is checking too many passwords right now: nothing was checked, try again in seconds. */
export const busy = (seconds: number) =>
  `Muitas verificações de senha ao mesmo tempo. Tente de novo em ${seconds} segundo${seconds === 1 ? '' : 's'}.`;

/**
 * 429 with Retry-After (the pair failed too often, or the IP tried too often), or 503 with
 * Retry-After (the password hashing gate is full).
 */
function heldBack(
  request: FastifyRequest,
  reply: FastifyReply,
  services: DashboardServices,
  retryAfter: number,
  body: 'login' | 'code',
  email = '',
  status: 429 | 503 = 429,
) {
  reply.header('retry-after', String(retryAfter));
  const error =
    status === 503 ? busy(retryAfter) : `Muitas tentativas. Tente de novo em ${minutes(retryAfter)}.`;
  return sendBarePage(request, reply, services, {
    title: body === 'login' ? 'Entrar' : 'Verificação em duas etapas',
    status,
    body: body === 'login' ? <LoginForm email={email} error={error} /> : <CodeForm error={error} />,
  });
}

/**
 * /dashboard/login: e-mail and password, then the TOTP code when the person turned it on. An unknown
 * e-mail and a wrong password get the same answer after the same work (a scrypt verification). Each
 * attempt is taken from the throttle before the password or code is checked, and given back when it
 * was right.
 */
export const loginScreen = defineScreen('login', async (app, services) => {
  const { db } = app;
  const { throttle } = services;

  app.get('/login', guard('anyone', { querystring: LoginQuery }), async (request, reply) => {
    if (request.dashboard.session?.stage === 'active') return reply.redirect(DASHBOARD_PREFIX, 303);
    const notice = request.query.senha === 'redefinida' ? 'Senha redefinida. Entre com a nova senha.' : null;
    return sendBarePage(request, reply, services, { title: 'Entrar', body: <LoginForm notice={notice} /> });
  });

  app.post('/login', guard('anyone', { body: LoginBody }), async (request, reply) => {
    const { email, password } = request.body;
    const ip = request.ip;
    const wait = await throttle.attempt(ip, email);
    if (wait !== null) return heldBack(request, reply, services, wait, 'login', email);

    const user = await findUserByEmail(db, email);
    let right: boolean;
    try {
      right = await verifyPassword(password, user?.password_hash ?? (await dummyPasswordHash()), ip);
    } catch (error) {
      if (!(error instanceof GateFullError)) throw error;
      await throttle.succeeded(ip, email); // nothing was checked: not a failure
      return heldBack(request, reply, services, error.retryAfterSeconds, 'login', email, 503);
    }
    const stores = user && right ? await membershipsOf(db, user.id) : [];
    if (!user || user.password_hash === null || !right || stores.length === 0) {
      if (user) {
        await auditEveryStore(db, user.id, { action: 'login_failed', detail: user.email, ip, userId: null });
      }
      return sendBarePage(request, reply, services, {
        title: 'Entrar',
        status: 401,
        body: <LoginForm email={email} error={WRONG_PAIR} />,
      });
    }
    await throttle.succeeded(ip, email);
    const first = stores[0]!.store_id;
    if (user.totp_secret_sealed !== null) {
      await startSession(request, reply, user.id, first, 'verify');
      return reply.redirect(VERIFY_PATH, 303);
    }
    await startSession(request, reply, user.id, first, 'active');
    await auditEveryStore(db, user.id, { action: 'login', detail: user.email, ip, userId: user.id });
    return reply.redirect(DASHBOARD_PREFIX, 303);
  });

  app.get('/login/verificar', guard('verify'), async (request, reply) =>
    sendBarePage(request, reply, services, { title: 'Verificação em duas etapas', body: <CodeForm /> }),
  );

  app.post('/login/verificar', guard('verify', { body: CodeBody }), async (request, reply) => {
    const session = request.dashboard.session!;
    const ip = request.ip;
    const wait = await throttle.attempt(ip, session.email);
    if (wait !== null) return heldBack(request, reply, services, wait, 'code');
    const user = await findUser(db, session.userId);
    const secret = user?.totp_secret_sealed
      ? services.secretBox.open(user.totp_secret_sealed, user.id)
      : null;
    const step = secret ? matchTotp(secret, request.body.code, user!.totp_last_step) : null;
    // A code is good once: the step is recorded only if no other request recorded it (or a later one) first.
    const claimed =
      step !== null &&
      Number(
        (
          await db
            .updateTable('users')
            .set({ totp_last_step: step })
            .where('id', '=', session.userId)
            .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
            .executeTakeFirst()
        ).numUpdatedRows,
      ) === 1;
    if (!claimed) {
      await auditEveryStore(db, session.userId, {
        action: 'login_failed',
        detail: `${session.email} (código de verificação)`,
        ip,
        userId: null,
      });
      return sendBarePage(request, reply, services, {
        title: 'Verificação em duas etapas',
        status: 401,
        body: <CodeForm error={WRONG_CODE} />,
      });
    }
    await throttle.succeeded(ip, session.email);
    await startSession(request, reply, session.userId, session.storeId, 'active');
    await auditEveryStore(db, session.userId, {
      action: 'login',
      detail: session.email,
      ip,
      userId: session.userId,
    });
    return reply.redirect(DASHBOARD_PREFIX, 303);
  });
});
