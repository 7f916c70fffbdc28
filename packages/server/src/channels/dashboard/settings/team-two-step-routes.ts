import { Type } from '@sinclair/typebox';
import { resetTwoStep, twoStepResetTarget } from '../../../domain/accounts/two-step-reset.js';
import { DashboardError } from '../shell/dashboard-plugin.js';
import { guard, member } from '../shell/page.js';
import { Csrf } from './settings-answers.js';
import type { SectionRoutes } from './settings-answers.js';

const Body = Type.Object({ email: Type.String({ maxLength: 1000 }), ...Csrf });

/**
 * Equipe → "Redefinir duas etapas" (owners): a member who lost their phone signs in with the password
 * alone again. Only for someone who belongs to this store alone: two-step verification is the
 * person's, and the owner of one store must not weaken it for another store (the operator can:
 * `storefront users reset-2fa`). Their sessions end; the entry is in this store's audit log, written
 * with the change.
 */
export const teamTwoStepRoutes: SectionRoutes = (app, _services, { refuse, done }) => {
  const { db } = app;

  app.post('/configuracoes/equipe/duas-etapas', guard('owner', { body: Body }), async (request, reply) => {
    const session = member(request);
    const target = await twoStepResetTarget(db, session.storeId, request.body.email);
    if (!target) throw new DashboardError(404, 'Esta pessoa não faz parte da loja.');
    if (target.userId === session.userId)
      return refuse(request, reply, 'team', 'Para a sua própria conta, use Minha conta.');
    if (target.otherStores > 0)
      return refuse(
        request,
        reply,
        'team',
        'Esta pessoa participa de outras lojas: só quem administra o servidor pode redefinir a verificação dela.',
        {},
        409,
      );
    const reset = await db
      .transaction()
      .execute((trx) =>
        resetTwoStep(
          trx,
          target.userId,
          { userId: session.userId, detail: target.email, ip: request.ip },
          session.storeId,
        ),
      );
    if (!reset)
      return refuse(request, reply, 'team', 'Esta pessoa não usa verificação em duas etapas.', {}, 409);
    return done(reply, 'duas-etapas-redefinida', 'equipe');
  });
};
