import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { audit } from '../../../domain/accounts/audit.js';
import { acceptInvite, findOpenInvite } from '../../../domain/accounts/invites.js';
import type { OpenInvite } from '../../../domain/accounts/invites.js';
import { hashPassword, PASSWORD_MAX_LENGTH, passwordProblem } from '../../../domain/accounts/passwords.js';
import { DASHBOARD_PREFIX, DashboardError } from '../shell/dashboard-plugin.js';
import { defineScreen, guard, sendBarePage } from '../shell/page.js';
import type { DashboardServices } from '../shell/services.js';
import { Notice, PostForm } from '../views/components.js';
import { PasswordFields } from '../views/password-fields.js';
import { startSession } from '../login/sign-in.js';

const Params = Type.Object({ token: Type.String({ maxLength: 64 }) });
const Body = Type.Object({
  password: Type.String({ maxLength: PASSWORD_MAX_LENGTH + 1 }),
  confirmation: Type.String({ maxLength: PASSWORD_MAX_LENGTH + 1 }),
});

const GONE =
  'Este convite não vale mais: ele expira em 72 horas e serve uma vez só. Peça um novo a quem convidou você.';

function invitePage(
  request: FastifyRequest,
  reply: FastifyReply,
  services: DashboardServices,
  invite: OpenInvite,
  token: string,
  error: string | null = null,
) {
  return sendBarePage(request, reply, services, {
    title: 'Criar sua senha',
    status: error ? 400 : 200,
    body: (
      <>
        <p>
          Você foi convidado para o painel da loja <strong>{invite.storeName}</strong> como{' '}
          <strong>{invite.email}</strong>. Crie uma senha para entrar.
        </p>
        {error ? <Notice kind="error">{error}</Notice> : null}
        <PostForm action={`${DASHBOARD_PREFIX}/convite/${token}`} class="stack">
          <PasswordFields />
          <button type="submit" class="button">
            Criar senha e entrar
          </button>
        </PostForm>
      </>
    ),
  });
}

/**
 * /dashboard/convite/<token>: the holder of an invite link sets the account's password and is signed
 * in. The link is good once, for 72 hours, and only while the account has no password.
 */
export const inviteScreen = defineScreen('invite', async (app, services) => {
  const { db } = app;

  async function openOr404(request: FastifyRequest, token: string): Promise<OpenInvite> {
    // Every guess costs one of the IP's login attempts: the link cannot be searched for.
    const wait = await services.throttle.ipAttempt(request.ip);
    if (wait !== null)
      throw new DashboardError(429, 'Muitas tentativas. Tente de novo daqui a pouco.', {
        'retry-after': String(wait),
      });
    const invite = await findOpenInvite(db, token);
    if (!invite) throw new DashboardError(404, GONE);
    return invite;
  }

  app.get('/convite/:token', guard('anyone', { params: Params }), async (request, reply) => {
    const invite = await openOr404(request, request.params.token);
    return invitePage(request, reply, services, invite, request.params.token);
  });

  app.post('/convite/:token', guard('anyone', { params: Params, body: Body }), async (request, reply) => {
    const { token } = request.params;
    const invite = await openOr404(request, token);
    const { password, confirmation } = request.body;
    const problem =
      passwordProblem(password) ?? (password === confirmation ? null : 'As duas senhas não são iguais.');
    if (problem) return invitePage(request, reply, services, invite, token, problem);
    if (!(await acceptInvite(db, invite, await hashPassword(password, request.ip))))
      throw new DashboardError(404, GONE);
    await audit(db, {
      storeId: invite.storeId,
      userId: invite.userId,
      action: 'member_joined',
      detail: invite.email,
      ip: request.ip,
    });
    await startSession(request, reply, invite.userId, invite.storeId, 'active');
    return reply.redirect(DASHBOARD_PREFIX, 303);
  });
});
