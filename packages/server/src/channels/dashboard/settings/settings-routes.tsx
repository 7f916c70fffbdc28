import { Type } from '@sinclair/typebox';
import { defineScreen, guard } from '../shell/page.js';
import { accountRoutes } from './account-routes.js';
import { metaRoutes } from './meta-routes.js';
import { paymentsRoutes } from './payments-routes.js';
import { recoveryEmailRoutes } from './recovery-email-routes.js';
import { NOTICE_SECTIONS, NOTICES, settingsAnswers } from './settings-answers.js';
import type { NoticeKey, SectionRoutes } from './settings-answers.js';
import { storeRoutes } from './store-routes.js';
import { teamRoutes } from './team-routes.js';
import { teamTwoStepRoutes } from './team-two-step-routes.js';
import { noticeOf } from '../shell/notices.js';

const Query = Type.Object({
  aviso: Type.Optional(Type.String({ maxLength: 40 })),
  antes: Type.Optional(Type.String({ maxLength: 100 })),
});

/** Each section's forms, in the order of the page. */
const SECTIONS: readonly SectionRoutes[] = [
  storeRoutes,
  paymentsRoutes,
  metaRoutes,
  recoveryEmailRoutes,
  teamRoutes,
  teamTwoStepRoutes,
  accountRoutes,
];

/**
 * Configurações, one page of sections: the store's name, handle, Pix key and checkout mode (owners,
 * through the same store services as the CLI), Meta conversions and the abandoned-order e-mail, the
 * team and its invites, the person's password and two-step verification, and the owners' audit log
 * (paged by `antes`).
 */
export const settingsScreen = defineScreen('settings', async (app, services) => {
  const answers = settingsAnswers(app, services);

  app.get('/configuracoes', guard('viewer', { querystring: Query }), async (request, reply) => {
    const { aviso, antes: auditBefore } = request.query;
    const notice = noticeOf(NOTICES, aviso);
    const key = notice ? (aviso as NoticeKey) : null;
    return answers.show(
      request,
      reply,
      { notice, noticeIn: key ? NOTICE_SECTIONS[key] : undefined },
      200,
      auditBefore,
    );
  });

  for (const routes of SECTIONS) routes(app, services, answers);
});
