import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { safeEqual } from '../../../platform/values/hmac.js';
import { isSameOrigin, newNonce } from '../../../platform/html/page-security.js';
import { roleAllows } from '../../../domain/accounts/roles.js';
import type { Role } from '../../../domain/accounts/roles.js';
import { csrfTokenOf, findSession } from '../../../domain/accounts/sessions.js';
import type { SignedInSession } from '../../../domain/accounts/sessions.js';
import { CSRF_FIELD } from '../views/components.js';

/**
 * Who may reach a dashboard route: anyone (login, invite links, assets), a browser half-way through
 * the login (`verify`: the password was right, the TOTP code is due), or a signed-in member whose
 * role is at least the one named.
 */
export type Access = Role | 'anyone' | 'verify';

declare module 'fastify' {
  interface FastifyContextConfig {
    dashboard?: { access: Access };
  }
  interface FastifyRequest {
    dashboard: DashboardRequestState;
  }
}

export interface DashboardRequestState {
  /** The session the cookie names, whatever its stage; null without one. */
  session: SignedInSession | null;
  /** The cookie's value (to derive the CSRF token); null without a live session. */
  token: string | null;
  /** The session's CSRF token; null without a session. */
  csrf: string | null;
  /** This response's CSP nonce. */
  nonce: string;
}

export const SESSION_COOKIE = 'sf_session';
export const DASHBOARD_PREFIX = '/dashboard';
const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD']);
/** Form bodies are small: a few fields. */
const FORM_BODY_LIMIT = 64 * 1024;

/** Why a request was stopped before its handler, with the HTTP status; rendered as a page. */
export class DashboardError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'DashboardError';
  }
}

function cookieValue(request: FastifyRequest, name: string): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=') || null;
  }
  return null;
}

/** `Set-Cookie` for the session: HttpOnly, SameSite=Lax, Path=/dashboard, Secure on an https origin. */
export function sessionCookie(publicUrl: string, token: string | null, maxAgeSeconds: number): string {
  return [
    `${SESSION_COOKIE}=${token ?? ''}`,
    `Path=${DASHBOARD_PREFIX}`,
    `Max-Age=${token === null ? 0 : maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(publicUrl.startsWith('https:') ? ['Secure'] : []),
  ].join('; ');
}

/** The fields of an `application/x-www-form-urlencoded` body; a repeated name gives an array. */
function parseForm(body: string): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    const seen = fields[name];
    fields[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return fields;
}

function sentCsrf(request: FastifyRequest): string | null {
  const header = request.headers[CSRF_HEADER];
  if (typeof header === 'string') return header;
  const body = request.body as Record<string, unknown> | null | undefined;
  const field = body && typeof body === 'object' ? body[CSRF_FIELD] : undefined;
  return typeof field === 'string' ? field : null;
}

/** Where a signed-out browser is sent. */
export const LOGIN_PATH = `${DASHBOARD_PREFIX}/login`;

function redirect(reply: FastifyReply, to: string): FastifyReply {
  return reply.code(303).header('location', to).send();
}

/**
 * The dashboard's one guard, for every route under /dashboard: reads the session cookie, and before
 * any handler runs enforces, in order, that a state-changing request comes from this origin, that
 * the route's access is met (signed in, with a role at least the one the route names), and that a
 * signed-in state-changing request carries the session's CSRF token (form field `_csrf` or header
 * `X-CSRF-Token`). Every route must name its access: one that does not fails the start.
 */
export const dashboardPlugin = fp(
  async (app: FastifyInstance) => {
    const { db, config } = app;

    app.addHook('onRoute', (route) => {
      if (!route.config?.dashboard) {
        throw new Error(`dashboard route ${route.method} ${route.url} declares no access (use guard())`);
      }
    });

    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) => done(null, parseForm(body as string)),
    );

    app.decorateRequest('dashboard', null as unknown as DashboardRequestState);

    app.addHook('onRequest', async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const token = cookieValue(request, SESSION_COOKIE);
      const session = token ? ((await findSession(db, token)) ?? null) : null;
      request.dashboard = {
        session,
        token: session ? token : null,
        csrf: session && token ? csrfTokenOf(config.secret, token) : null,
        nonce: newNonce(),
      };
    });

    app.addHook('preValidation', async (request, reply) => {
      const access = request.routeOptions.config.dashboard?.access;
      // Fastify's own 404 handler route: nothing to guard.
      if (access === undefined) return;
      const changes = !SAFE_METHODS.has(request.method);
      if (changes && !isSameOrigin(request, config.publicUrl)) {
        throw new DashboardError(403, 'Pedido de outra origem recusado.');
      }
      if (access === 'anyone') return;
      const { session } = request.dashboard;
      const stageOk = session && session.stage === (access === 'verify' ? 'verify' : 'active');
      if (!stageOk) {
        if (!changes) return redirect(reply, LOGIN_PATH);
        throw new DashboardError(403, 'Sua sessão terminou. Entre de novo para continuar.');
      }
      if (access !== 'verify' && !roleAllows(session.role, access)) {
        throw new DashboardError(403, 'Seu papel nesta loja não permite esta ação.');
      }
      if (changes) {
        const sent = sentCsrf(request);
        if (sent === null || !safeEqual(sent, request.dashboard.csrf!)) {
          throw new DashboardError(
            403,
            'Formulário expirado ou inválido. Recarregue a página e tente de novo.',
          );
        }
      }
    });
  },
  { name: 'dashboard-guard' },
);
