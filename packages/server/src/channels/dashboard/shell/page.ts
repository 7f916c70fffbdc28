import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ComponentChildren } from 'preact';
import { h } from 'preact';
import { DEFAULT_TIMEZONE } from '../../../platform/values/local-date.js';
import { pageCsp, sendHtml } from '../../../platform/html/page-security.js';
import { renderPage } from '../../../platform/html/render.js';
import type { Access } from './dashboard-plugin.js';
import { DashboardError } from './dashboard-plugin.js';
import type { SignedInSession } from '../../../domain/accounts/sessions.js';
import { membershipsOf } from '../../../domain/accounts/users.js';
import type { DashboardServices } from './services.js';
import { BarePage, Layout } from '../views/layout.js';
import type { NavKey } from '../views/layout.js';
import { PageContextValue } from '../views/page-context.js';

/** The dashboard's Fastify instance: TypeBox-typed routes under /dashboard, behind its guard. */
export type DashboardApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/**
 * One screen of the dashboard (a folder beside `screens.ts`): its routes, registered under /dashboard
 * with the dashboard's services. Listed once in `screens.ts`.
 */
export interface DashboardScreen {
  name: string;
  routes: FastifyPluginAsync<DashboardServices>;
}

/**
 * Declares a screen. `routes` receives the scoped app (TypeBox types) and the services; each route it
 * adds must say who may use it with `guard(…)`.
 */
export function defineScreen(
  name: string,
  routes: (app: DashboardApp, services: DashboardServices) => Promise<void>,
): DashboardScreen {
  return {
    name,
    routes: async (app, services) => routes(app.withTypeProvider<TypeBoxTypeProvider>(), services),
  };
}

/**
 * The options of a dashboard route: who may use it (a role, `anyone`, or `verify` for the TOTP step)
 * and its TypeBox schema. A POST by a signed-in member also needs the CSRF token; a role below the one
 * named gets 403 before the handler runs.
 *
 *     app.post('/produtos', guard('editor', { body: ProductForm }), async (request, reply) => …)
 */
export function guard<S extends FastifySchema = FastifySchema>(
  access: Access,
  schema?: S,
): { schema: S & { hide: true }; config: { dashboard: { access: Access } } } {
  return { schema: { ...(schema ?? ({} as S)), hide: true }, config: { dashboard: { access } } };
}

/** The signed-in member of a route guarded by a role (never null there). */
export function member(request: FastifyRequest): SignedInSession {
  const session = request.dashboard.session;
  if (!session || session.stage !== 'active') throw new DashboardError(403, 'Entre para continuar.');
  return session;
}

export interface PageOptions {
  title: string;
  /** Which item of the navigation is this page's; null for none. */
  nav: NavKey | null;
  status?: number;
  /** A page's own script, served from this origin. */
  script?: string;
  /** The page shows a preview of a purchase page in a frame (this origin's pages only). */
  framesPreview?: boolean;
  body: ComponentChildren;
}

/** Renders a signed-in page in the dashboard's layout, with the CSP, nonce and CSRF token. */
export async function sendPage(
  request: FastifyRequest,
  reply: FastifyReply,
  services: Pick<DashboardServices, 'css' | 'script'>,
  page: PageOptions,
): Promise<FastifyReply> {
  const session = member(request);
  const { nonce, csrf } = request.dashboard;
  const stores = await membershipsOf(request.server.db, session.userId);
  const tree = h(
    PageContextValue.Provider,
    { value: { csrf, nonce, role: session.role, timeZone: session.storeTimezone } },
    h(Layout, {
      title: page.title,
      nonce,
      css: services.css,
      dashboardScript: services.script,
      script: page.script,
      nav: page.nav,
      email: session.email,
      storeId: session.storeId,
      storeName: session.storeName,
      stores,
      children: page.body,
    }),
  );
  const csp = pageCsp(nonce, [], { framesPreview: page.framesPreview ?? false });
  return sendHtml(reply, page.status ?? 200, csp, renderPage(tree), 'same-origin');
}

/** A page outside the signed-in layout: login, invite, the TOTP step, errors. */
export function sendBarePage(
  request: FastifyRequest,
  reply: FastifyReply,
  services: Pick<DashboardServices, 'css' | 'script'>,
  page: Omit<PageOptions, 'nav'>,
): FastifyReply {
  const { nonce, csrf } = request.dashboard;
  const tree = h(
    PageContextValue.Provider,
    { value: { csrf, nonce, role: null, timeZone: DEFAULT_TIMEZONE } },
    h(BarePage, {
      title: page.title,
      nonce,
      css: services.css,
      dashboardScript: services.script,
      script: page.script,
      children: page.body,
    }),
  );
  return sendHtml(reply, page.status ?? 200, pageCsp(nonce, []), renderPage(tree), 'same-origin');
}
