import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { createSecretBox } from '../../platform/values/secret-box.js';
import { createMailer } from '../../platform/mail/smtp-mailer.js';
import type { MailerOptions } from '../../platform/mail/smtp-mailer.js';
import { ApiError } from '../../platform/http/api-error.js';
import { GateFullError } from '../../platform/concurrency/work-gate.js';
import { registerHashedAsset } from '../../platform/html/page-assets.js';
import { loginThrottle } from '../../domain/accounts/login-throttle.js';
import { DASHBOARD_PREFIX, dashboardPlugin, DashboardError } from './shell/dashboard-plugin.js';
import { sendBarePage, sendPage } from './shell/page.js';
import { DASHBOARD_SCREENS } from './screens.js';
import { busy } from './login/login-routes.js';
import type { DashboardServices } from './shell/services.js';

export { DASHBOARD_PREFIX };

/** Statuses a dashboard error keeps; anything else is a 500 to the person and a log line. */
function pageError(error: Error & { statusCode?: number }): DashboardError {
  if (error instanceof DashboardError) return error;
  if (error instanceof GateFullError) {
    // Password hashing is at capacity: nothing was checked or changed; the form can be sent again.
    const wait = error.retryAfterSeconds;
    return new DashboardError(503, busy(wait), { 'retry-after': String(wait) });
  }
  if (error instanceof ApiError && error.statusCode < 500) {
    return new DashboardError(
      error.statusCode,
      'Pedido inválido. Recarregue a página e tente de novo.',
      error.headers,
    );
  }
  if ((error.statusCode ?? 500) < 500) {
    return new DashboardError(error.statusCode!, 'Pedido inválido. Recarregue a página e tente de novo.');
  }
  return new DashboardError(500, 'Algo deu errado do nosso lado. Tente de novo em instantes.');
}

/**
 * The merchant dashboard at /dashboard: its guard (session, CSRF, same origin, roles), its stylesheet,
 * error pages in Portuguese, and every screen of `screens.ts`.
 */
export async function dashboardRoutes(
  app: FastifyInstance,
  options: { redis: Redis | null; mailerTls?: MailerOptions['tls'] },
): Promise<void> {
  await app.register(dashboardPlugin);
  const services: DashboardServices = {
    css: registerHashedAsset(app, DASHBOARD_PREFIX, 'assets/dashboard.css', 'css', {
      dashboard: { access: 'anyone' },
    }).url,
    script: registerHashedAsset(app, DASHBOARD_PREFIX, 'dist/browser/dashboard.js', 'js', {
      dashboard: { access: 'anyone' },
    }).url,
    secretBox: createSecretBox(app.config.secret),
    throttle: loginThrottle(options.redis, app.log),
    redis: options.redis,
    mailer: app.config.smtp
      ? createMailer(app.config.smtp, options.mailerTls ? { tls: options.mailerTls } : {})
      : null,
  };
  app.addHook('onClose', async () => {
    services.throttle.close();
    services.mailer?.close();
  });

  function errorPage(
    request: Parameters<typeof sendPage>[0],
    reply: Parameters<typeof sendPage>[1],
    error: DashboardError,
  ) {
    reply.headers(error.headers);
    const body = <p>{error.message}</p>;
    const page = {
      title: error.statusCode === 404 ? 'Página não encontrada' : 'Não foi possível',
      status: error.statusCode,
      body,
    };
    // Inside the layout for a signed-in person, so the navigation stays at hand.
    return request.dashboard?.session?.stage === 'active'
      ? sendPage(request, reply, services, { ...page, nav: null })
      : sendBarePage(request, reply, services, page);
  }

  app.setNotFoundHandler((request, reply) =>
    errorPage(request, reply, new DashboardError(404, 'Esta página não existe.')),
  );
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    const shown = pageError(error);
    if (shown.statusCode >= 500 && !(error instanceof GateFullError))
      request.log.error({ err: error }, 'dashboard request failed');
    return errorPage(request, reply, shown);
  });

  for (const screen of DASHBOARD_SCREENS) await app.register(screen.routes, services);
}
