import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashPassword, PASSWORD_MAX_LENGTH, passwordProblem } from '../../../domain/accounts/passwords.js';
import {
  completePasswordReset,
  findOpenPasswordReset,
  insertPasswordReset,
  passwordResetUrl,
} from '../../../domain/accounts/password-resets.js';
import type { OpenPasswordReset } from '../../../domain/accounts/password-resets.js';
import { findUserByEmail, membershipsOf } from '../../../domain/accounts/users.js';
import { DashboardError, LOGIN_PATH } from '../shell/dashboard-plugin.js';
import { defineScreen, guard, sendBarePage } from '../shell/page.js';
import { Field, Notice, PostForm } from '../views/components.js';
import { PasswordFields } from '../views/password-fields.js';
import { passwordResetEmail } from './password-reset-email.js';

export const FORGOT_PATH = `${LOGIN_PATH}/esqueci`;
const RESET_PATH = `${LOGIN_PATH}/redefinir`;

/** The one answer to a request, whether or not the e-mail has an account. */
export const RESET_SENT =
  'Se houver uma conta com esse e-mail, enviamos um link para criar uma nova senha. Ele vale 1 hora e serve uma vez só. Confira também a caixa de spam.';
const NO_SMTP =
  'Este servidor não envia e-mails. Peça a um proprietário da loja para convidar você de novo, ou a quem administra o servidor para gerar um link com storefront users reset-password.';
const GONE =
  'Este link não vale mais: ele expira em 1 hora e serve uma vez só. Peça outro em "Esqueci minha senha".';

const ForgotBody = Type.Object({
  email: Type.String({ maxLength: 254 }),
  _csrf: Type.Optional(Type.String()),
});
const Params = Type.Object({ token: Type.String({ maxLength: 64 }) });
const ResetBody = Type.Object({
  password: Type.String({ maxLength: PASSWORD_MAX_LENGTH + 1 }),
  confirmation: Type.String({ maxLength: PASSWORD_MAX_LENGTH + 1 }),
});

function ForgotForm(props: { smtp: boolean; notice?: string; error?: string; email?: string }) {
  return (
    <>
      {props.notice ? <Notice kind="ok">{props.notice}</Notice> : null}
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      {props.smtp ? (
        <>
          <p>Digite o e-mail com que você entra no painel. Enviaremos um link para criar uma nova senha.</p>
          <PostForm action={FORGOT_PATH} class="stack">
            <Field
              label="E-mail"
              name="email"
              type="email"
              autocomplete="username"
              required
              maxLength={254}
              value={props.email ?? ''}
            />
            <button type="submit" class="button">
              Enviar link
            </button>
          </PostForm>
        </>
      ) : (
        <p>{NO_SMTP}</p>
      )}
      <p>
        <a href={LOGIN_PATH}>Voltar para entrar</a>
      </p>
    </>
  );
}

/**
 * "Esqueci minha senha": a form asking the e-mail, which answers the same whether or not an account
 * has it (the e-mail is sent after the answer, so the timing says nothing either), throttled per IP
 * and per e-mail; and the link's page, which sets a new password, ends every session of the person
 * and is audited in their stores. Only an account that already has a password is sent a link: an
 * invited person sets theirs through the invite, and no membership is accepted here.
 */
export const passwordResetScreen = defineScreen('password-reset', async (app, services) => {
  const { db, config } = app;
  const smtp = services.mailer !== null && config.smtp !== null;
  const forgotPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    props: Parameters<typeof ForgotForm>[0],
    status = 200,
  ) =>
    sendBarePage(request, reply, services, {
      title: 'Esqueci minha senha',
      status,
      body: <ForgotForm {...props} />,
    });

  app.get('/login/esqueci', guard('anyone'), async (request, reply) => forgotPage(request, reply, { smtp }));

  app.post('/login/esqueci', guard('anyone', { body: ForgotBody }), async (request, reply) => {
    if (!smtp) return forgotPage(request, reply, { smtp });
    const { email } = request.body;
    const wait = await services.throttle.resetRequest(request.ip, email);
    if (wait !== null) {
      reply.header('retry-after', String(wait));
      const error = 'Muitos pedidos de nova senha. Tente de novo mais tarde.';
      return forgotPage(request, reply, { smtp, error, email }, 429);
    }
    const user = await findUserByEmail(db, email);
    if (user?.password_hash && (await membershipsOf(db, user.id)).length > 0) {
      const url = passwordResetUrl(config.publicUrl, await insertPasswordReset(db, user.id));
      // Not awaited: an account's answer must not take longer than no account's.
      void services.mailer!.send(passwordResetEmail(config.smtp!, { email: user.email, url })).then(
        (sent) => {
          if (!sent.ok) request.log.warn({ error: sent.error }, 'password reset e-mail not sent');
        },
        (error: unknown) =>
          request.log.warn({ error: (error as Error).message }, 'password reset e-mail failed'),
      );
    }
    return forgotPage(request, reply, { smtp, notice: RESET_SENT });
  });

  async function openOr404(request: FastifyRequest, token: string): Promise<OpenPasswordReset> {
    // Every try costs one of the IP's login attempts: the link cannot be searched for.
    const wait = await services.throttle.ipAttempt(request.ip);
    if (wait !== null)
      throw new DashboardError(429, 'Muitas tentativas. Tente de novo daqui a pouco.', {
        'retry-after': String(wait),
      });
    const reset = await findOpenPasswordReset(db, token);
    if (!reset) throw new DashboardError(404, GONE);
    return reset;
  }

  const resetPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    reset: OpenPasswordReset,
    token: string,
    error: string | null = null,
  ) =>
    sendBarePage(request, reply, services, {
      title: 'Criar uma nova senha',
      status: error ? 400 : 200,
      body: (
        <>
          <p>
            Nova senha para <strong>{reset.email}</strong>. Ao salvar, todas as sessões abertas com esta conta
            são encerradas.
          </p>
          {error ? <Notice kind="error">{error}</Notice> : null}
          <PostForm action={`${RESET_PATH}/${token}`} class="stack">
            <PasswordFields />
            <button type="submit" class="button">
              Salvar nova senha
            </button>
          </PostForm>
        </>
      ),
    });

  app.get('/login/redefinir/:token', guard('anyone', { params: Params }), async (request, reply) => {
    const reset = await openOr404(request, request.params.token);
    return resetPage(request, reply, reset, request.params.token);
  });

  app.post(
    '/login/redefinir/:token',
    guard('anyone', { params: Params, body: ResetBody }),
    async (request, reply) => {
      const { token } = request.params;
      const reset = await openOr404(request, token);
      const { password, confirmation } = request.body;
      const problem =
        passwordProblem(password) ?? (password === confirmation ? null : 'As duas senhas não são iguais.');
      if (problem) return resetPage(request, reply, reset, token, problem);
      const hash = await hashPassword(password, request.ip);
      if (!(await completePasswordReset(db, reset, hash, request.ip))) throw new DashboardError(404, GONE);
      return reply.redirect(`${LOGIN_PATH}?senha=redefinida`, 303);
    },
  );
});
