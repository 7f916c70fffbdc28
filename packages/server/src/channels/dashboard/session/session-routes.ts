import { Type } from '@sinclair/typebox';
import { auditRequest } from '../shell/audit-request.js';
import { endSession, switchSessionStore } from '../../../domain/accounts/sessions.js';
import { membershipsOf } from '../../../domain/accounts/users.js';
import { DASHBOARD_PREFIX, DashboardError, LOGIN_PATH, sessionCookie } from '../shell/dashboard-plugin.js';
import { defineScreen, guard, member } from '../shell/page.js';

const SwitchBody = Type.Object({ store_id: Type.String({ maxLength: 100 }), _csrf: Type.String() });

/** "Sair" ends the session; the select "Loja" moves it to another store of the person. */
export const sessionScreen = defineScreen('session', async (app) => {
  const { db, config } = app;

  app.post('/logout', guard('viewer'), async (request, reply) => {
    const session = member(request);
    await db.transaction().execute(async (trx) => {
      await endSession(trx, session.idHash);
      await auditRequest(trx, request, 'logout', session.email);
    });
    return reply.header('set-cookie', sessionCookie(config.publicUrl, null, 0)).redirect(LOGIN_PATH, 303);
  });

  app.post('/loja', guard('viewer', { body: SwitchBody }), async (request, reply) => {
    const session = member(request);
    const stores = await membershipsOf(db, session.userId);
    if (!stores.some((store) => store.store_id === request.body.store_id)) {
      throw new DashboardError(404, 'Loja não encontrada.');
    }
    await switchSessionStore(db, session.idHash, request.body.store_id);
    return reply.redirect(DASHBOARD_PREFIX, 303);
  });
});
