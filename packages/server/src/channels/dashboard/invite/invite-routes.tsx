import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { audit } from '../../../domain/accounts/audit.js';
import { acceptInvite, findOpenInvite } from '../../../domain/accounts/invites.js';
import type { OpenInvite } from '../../../domain/accounts/invites.js';
import { hashPassword, PASSWORD_MAX_LENGTH, passwordProblem } from '../../../domain/accounts/passwords.js';
import { switchSessionStore } from '../../../domain/accounts/sessions.js';
import { DASHBOARD_PREFIX, DashboardError, LOGIN_PATH } from '../shell/dashboard-plugin.js';
import { defineScreen, guard, member, sendBarePage } from '../shell/page.js';
import type { DashboardServices } from '../shell/services.js';
import { Notice, PostForm } from '../views/components.js';
import { PasswordFields } from '../views/password-fields.js';
import { startSession } from '../login/sign-in.js';

const Params = Type.Object({ token: Type.String({ maxLength: 64 }) });
const Body = Type.Object({
  password: Type.String({ maxLength: PASSWORD_MAX_LENGTH + 1 }),
  confirmation: Type.String({ maxLength: PASSWORD_MAX_LENGTH + 1 }),
});
const AcceptBody = Type.Object({ _csrf: Type.String() });

const GONE =
  'Este convite não vale mais: ele expira em 72 horas e serve uma vez só. Peça um novo a quem convidou você.';
const NOT_YOURS = 'Este convite é de outra conta: entre no painel com o e-mail convidado para aceitá-lo.';
const NO_PASSWORD_HERE =
  'Este convite não cria senha: entre no painel com a sua conta e abra o link de novo para aceitá-lo.';

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
 * The invite of an account that already has a password (or that another store's link must give one
 * first): only its person, signed in, accepts it here; anyone else is told to sign in as them.
 */
function acceptPage(
  request: FastifyRequest,
  reply: FastifyReply,
  services: DashboardServices,
  invite: OpenInvite,
  token: string,
) {
  const session = request.dashboard.session;
  const theirs = session?.stage === 'active' && session.userId === invite.userId;
  const intro = (
    <p>
      A loja <strong>{invite.storeName}</strong> convidou <strong>{invite.email}</strong> para o painel.
    </p>
  );
  let body;
  if (theirs) {
    body = (
      <>
        {intro}
        <PostForm action={`${DASHBOARD_PREFIX}/convite/${token}/aceitar`} class="stack">
          <button type="submit" class="button">
            Aceitar convite
          </button>
        </PostForm>
        <p>
          <a href={DASHBOARD_PREFIX}>Agora não</a>
        </p>
      </>
    );
  } else if (invite.mode === 'blocked') {
    body = (
      <>
        {intro}
        <p>
          Esta conta ainda não tem senha e também foi convidada por outra loja. Crie a senha pelo convite que
          recebeu primeiro (ou peça um novo a quem o enviou) e, já dentro do painel, abra este link de novo
          para aceitar.
        </p>
      </>
    );
  } else {
    body = (
      <>
        {intro}
        <p>
          Esta conta já existe. Entre no painel com a senha dela e abra este link de novo para aceitar o
          convite.
        </p>
        {session ? <p>Você entrou com outra conta: saia dela antes.</p> : null}
        <p>
          <a class="button" href={LOGIN_PATH}>
            Entrar
          </a>
        </p>
      </>
    );
  }
  return sendBarePage(request, reply, services, { title: 'Convite', body });
}

/**
 * /dashboard/convite/<token>: an invite accepts its own membership, nothing else. The link is good
 * once, for 72 hours. For an account without a password that no other store had invited, its holder
 * sets the password and is signed in; for any other account, the person signs in first (with their
 * own password) and accepts here.
 */
export const inviteScreen = defineScreen('invite', async (app, services) => {
  const { db } = app;

  /** "Entrou na loja", in the store's audit log, written with the acceptance. */
  const joined =
    (request: FastifyRequest) =>
    (trx: Kysely<Database>, invite: OpenInvite): Promise<void> =>
      audit(trx, {
        storeId: invite.storeId,
        userId: invite.userId,
        action: 'member_joined',
        detail: invite.email,
        ip: request.ip,
      });

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
    const { token } = request.params;
    const invite = await openOr404(request, token);
    if (invite.mode === 'set-password') return invitePage(request, reply, services, invite, token);
    return acceptPage(request, reply, services, invite, token);
  });

  app.post('/convite/:token', guard('anyone', { params: Params, body: Body }), async (request, reply) => {
    const { token } = request.params;
    const invite = await openOr404(request, token);
    if (invite.mode !== 'set-password') throw new DashboardError(403, NO_PASSWORD_HERE);
    const { password, confirmation } = request.body;
    const problem =
      passwordProblem(password) ?? (password === confirmation ? null : 'As duas senhas não são iguais.');
    if (problem) return invitePage(request, reply, services, invite, token, problem);
    const passwordHash = await hashPassword(password, request.ip);
    if (!(await acceptInvite(db, invite, passwordHash, joined(request)))) throw new DashboardError(404, GONE);
    await startSession(request, reply, invite.userId, invite.storeId, 'active');
    return reply.redirect(DASHBOARD_PREFIX, 303);
  });

  app.post(
    '/convite/:token/aceitar',
    guard('viewer', { params: Params, body: AcceptBody }),
    async (request, reply) => {
      const session = member(request);
      const invite = await openOr404(request, request.params.token);
      if (invite.userId !== session.userId) throw new DashboardError(403, NOT_YOURS);
      if (!(await acceptInvite(db, invite, null, joined(request)))) throw new DashboardError(404, GONE);
      await switchSessionStore(db, session.idHash, invite.storeId);
      return reply.redirect(DASHBOARD_PREFIX, 303);
    },
  );
});
