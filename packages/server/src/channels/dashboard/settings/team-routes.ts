import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { auditRequest } from '../shell/audit-request.js';
import { inviteUrl } from '../../../domain/accounts/invites.js';
import { isRole, ROLE_LABELS } from '../../../domain/accounts/roles.js';
import {
  changeMemberRole,
  inviteMember,
  removeMember,
  renewInvite,
  TeamError,
} from '../../../domain/accounts/team.js';
import type { Role } from '../../../domain/accounts/roles.js';
import { DashboardError } from '../shell/dashboard-plugin.js';
import { guard, member } from '../shell/page.js';
import { inviteEmail } from './invite-email.js';
import { Csrf } from './settings-answers.js';
import type { SectionRoutes } from './settings-answers.js';

const InviteBody = Type.Object({
  email: Type.String({ maxLength: 1000 }),
  role: Type.String({ maxLength: 20 }),
  ...Csrf,
});
const RemoveBody = Type.Object({ email: Type.String({ maxLength: 1000 }), ...Csrf });
const ResendBody = RemoveBody;
const RoleBody = Type.Object({
  email: Type.String({ maxLength: 1000 }),
  role: Type.String({ maxLength: 20 }),
  ...Csrf,
});
const LAST_OWNER = 'A loja precisa de pelo menos um proprietário.';
const NOT_MEMBER = 'Esta pessoa não faz parte da loja.';

/**
 * Equipe (owners): invites (the link shown once, and e-mailed when SMTP is configured; sent again
 * while not accepted), roles and removals; the store always keeps an owner. A person invited is
 * "Convite enviado" until they accept, whatever their account elsewhere.
 */
export const teamRoutes: SectionRoutes = (app, services, { show, refuse, done }) => {
  const { db, config } = app;

  /** The link, e-mailed when SMTP is configured; what the notice under Equipe shows. */
  async function sendInvite(
    request: FastifyRequest,
    invited: { email: string; role: Role; inviteToken: string; linkSetsPassword: boolean },
    storeName: string,
  ) {
    const url = inviteUrl(config.publicUrl, invited.inviteToken);
    let emailed: boolean | null = null;
    if (services.mailer && config.smtp) {
      const sent = await services.mailer.send(
        inviteEmail(config.smtp, {
          email: invited.email,
          storeName,
          role: invited.role,
          url,
          setsPassword: invited.linkSetsPassword,
        }),
      );
      if (!sent.ok) request.log.warn({ error: sent.error }, 'invite e-mail not sent');
      emailed = sent.ok;
    }
    return { email: invited.email, url, emailed };
  }

  app.post('/configuracoes/equipe/convidar', guard('owner', { body: InviteBody }), async (request, reply) => {
    const { storeId, storeName } = member(request);
    const { email, role } = request.body;
    if (!isRole(role)) return refuse(request, reply, 'team', 'Escolha um papel.', { email });
    let added;
    try {
      added = await inviteMember(db, { storeId, email, role }, (trx, added) =>
        auditRequest(trx, request, 'member_invited', `${added.email} (${ROLE_LABELS[role]})`),
      );
    } catch (error) {
      if (!(error instanceof TeamError)) throw error;
      const message =
        error.code === 'invalid_email' ? 'E-mail inválido.' : 'Esta pessoa já faz parte da loja.';
      return refuse(request, reply, 'team', message, { email }, error.code === 'invalid_email' ? 400 : 409);
    }
    const invite = await sendInvite(
      request,
      { ...added, inviteToken: added.inviteToken!, linkSetsPassword: added.linkSetsPassword! },
      storeName,
    );
    return show(request, reply, { invite });
  });

  // An invite not accepted yet (expired, lost) gets a new link; the old one stops working.
  app.post('/configuracoes/equipe/reenviar', guard('owner', { body: ResendBody }), async (request, reply) => {
    const { storeId, storeName } = member(request);
    let renewed;
    try {
      renewed = await renewInvite(db, storeId, request.body.email, {
        onWrite: (trx, renewed) =>
          auditRequest(
            trx,
            request,
            'member_invited',
            `${renewed.email} (${ROLE_LABELS[renewed.role]}, convite reenviado)`,
          ),
      });
    } catch (error) {
      if (!(error instanceof TeamError)) throw error;
      if (error.code === 'not_member') throw new DashboardError(404, NOT_MEMBER);
      return refuse(request, reply, 'team', 'Esta pessoa já aceitou o convite.', {}, 409);
    }
    return show(request, reply, { invite: await sendInvite(request, renewed, storeName) });
  });

  app.post('/configuracoes/equipe/remover', guard('owner', { body: RemoveBody }), async (request, reply) => {
    const { storeId } = member(request);
    try {
      await removeMember(db, storeId, request.body.email, (trx, removed) =>
        auditRequest(trx, request, 'member_removed', `${removed.email} (${ROLE_LABELS[removed.role]})`),
      );
    } catch (error) {
      if (!(error instanceof TeamError)) throw error;
      if (error.code === 'not_member') throw new DashboardError(404, NOT_MEMBER);
      return refuse(request, reply, 'team', LAST_OWNER, {}, 409);
    }
    return done(reply, 'removido', 'equipe');
  });

  app.post('/configuracoes/equipe/papel', guard('owner', { body: RoleBody }), async (request, reply) => {
    const { storeId } = member(request);
    const { email, role } = request.body;
    if (!isRole(role)) return refuse(request, reply, 'team', 'Escolha um papel.');
    try {
      await changeMemberRole(db, storeId, email, role, (trx, changed) =>
        auditRequest(
          trx,
          request,
          'member_role_changed',
          `${changed.email}: ${ROLE_LABELS[changed.from]} → ${ROLE_LABELS[changed.to]}`,
        ),
      );
    } catch (error) {
      if (!(error instanceof TeamError)) throw error;
      if (error.code === 'not_member') throw new DashboardError(404, NOT_MEMBER);
      return refuse(request, reply, 'team', LAST_OWNER, {}, 409);
    }
    return done(reply, 'papel', 'equipe');
  });
};
