import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { hashPassword } from '../../src/domain/accounts/passwords.js';
import { ROLES } from '../../src/domain/accounts/roles.js';
import type { Role } from '../../src/domain/accounts/roles.js';
import { addMember } from '../../src/domain/accounts/team.js';
import type { TestApi } from './test-api.js';

export interface DashboardUser {
  id: string;
  email: string;
  password: string;
  role: Role;
  storeId: string;
}

/** A member of a store with a password, made through the team service the CLI uses. */
export async function addDashboardUser(
  api: TestApi,
  storeId: string,
  role: Role,
  email = `${role}-${randomBytes(4).toString('hex')}@loja.example`,
): Promise<DashboardUser> {
  const password = `senha-${randomBytes(8).toString('hex')}`;
  const added = await addMember(api.db, { storeId, email, role, passwordHash: await hashPassword(password) });
  return { id: added.id, email: added.email, password, role, storeId };
}

export interface DashboardSession {
  /** `sf_session=…`, for a Cookie header. */
  cookie: string;
  /** The session's CSRF token, as the pages' forms carry it. */
  csrf: string;
}

export interface DashboardResponse {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * One request to the dashboard as a browser on it would send it: the session's cookie, and for a
 * POST the page's Origin and a form body (plus the CSRF token unless `csrf: false`).
 */
export async function dashboardRequest(
  baseUrl: string,
  session: DashboardSession | null,
  method: 'GET' | 'POST',
  path: string,
  form?: Record<string, string>,
  options: { csrf?: boolean; headers?: Record<string, string> } = {},
): Promise<DashboardResponse> {
  const headers: Record<string, string> = {};
  if (session) headers.cookie = session.cookie;
  let body: string | undefined;
  if (method === 'POST') {
    headers.origin = baseUrl;
    const fields = { ...form };
    if (session && options.csrf !== false) fields._csrf = session.csrf;
    body = new URLSearchParams(fields).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...headers, ...options.headers },
    body,
    redirect: 'manual',
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/**
 * One signed-in member per role of a store, and requests to the dashboard as each of them:
 * `signIn(storeId)` (in a beforeAll) fills `sessions`; `get` and `post` take the role.
 */
export function memberPerRole(api: TestApi) {
  const sessions = {} as Record<Role, DashboardSession>;
  return {
    sessions,
    get: (role: Role, path: string) => dashboardRequest(api.baseUrl, sessions[role], 'GET', path),
    post: (role: Role, path: string, fields: Record<string, string> = {}) =>
      dashboardRequest(api.baseUrl, sessions[role], 'POST', path, fields),
    async signIn(storeId: string): Promise<void> {
      for (const role of ROLES)
        sessions[role] = await dashboardLogin(api.baseUrl, await addDashboardUser(api, storeId, role));
    },
  };
}

/** The `sf_session` cookie a response sets, as a Cookie header value. */
export function sessionCookieOf(response: DashboardResponse): string {
  const header = response.headers.get('set-cookie') ?? '';
  const match = /sf_session=([^;]*)/.exec(header);
  if (!match?.[1]) throw new Error(`no session cookie in ${response.status}: ${header} ${response.text}`);
  return `sf_session=${match[1]}`;
}

/** The CSRF token in a page's forms. */
export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no CSRF token in the page');
  return match[1]!;
}

/** Signs in over HTTP with e-mail and password (no TOTP); returns the cookie and the CSRF token. */
export async function dashboardLogin(
  baseUrl: string,
  user: Pick<DashboardUser, 'email' | 'password'>,
): Promise<DashboardSession> {
  const login = await dashboardRequest(baseUrl, null, 'POST', '/dashboard/login', {
    email: user.email,
    password: user.password,
  });
  if (login.status !== 303) throw new Error(`login failed: ${login.status} ${login.text}`);
  const cookie = sessionCookieOf(login);
  const home = await dashboardRequest(baseUrl, { cookie, csrf: '' }, 'GET', '/dashboard');
  if (home.status !== 200) throw new Error(`dashboard after login: ${home.status}`);
  return { cookie, csrf: csrfOf(home.text) };
}

/** Signs in in a browser page with the keyboard-free shortcut of filling the fields; lands on Início. */
export async function dashboardBrowserLogin(
  page: Page,
  baseUrl: string,
  user: Pick<DashboardUser, 'email' | 'password'>,
): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/login`);
  await page.getByLabel('E-mail').fill(user.email);
  await page.getByLabel('Senha').fill(user.password);
  await Promise.all([
    page.waitForURL(`${baseUrl}/dashboard`),
    page.getByRole('button', { name: 'Entrar' }).click(),
  ]);
}
