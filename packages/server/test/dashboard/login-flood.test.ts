import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { passwordHashing } from '../../src/domain/accounts/passwords.js';
import { totpCode, totpStep } from '../../src/domain/accounts/totp.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import {
  addDashboardUser,
  csrfOf,
  dashboardLogin,
  dashboardRequest,
  sessionCookieOf,
} from '../support/dashboard.js';
import type { DashboardSession, DashboardUser } from '../support/dashboard.js';

const REDIS_URL = process.env.STOREFRONT_TEST_REDIS_URL || null;
const WRONG_PAIR = 'E-mail ou senha incorretos.';
const WRONG_CODE = 'Código incorreto';

const login = (api: TestApi, email: string, password: string, from?: string) =>
  dashboardRequest(
    api.baseUrl,
    null,
    'POST',
    '/dashboard/login',
    { email, password },
    { headers: from ? { 'x-forwarded-for': from } : {} },
  );

/** How many answers of each kind: checked-and-wrong (401), held (429), hashing busy (503). */
function tally(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** Holds every place of the password-hashing gate until `release()`: the next hash is refused. */
function fillHashingGate(): { release(): Promise<void> } {
  let open!: () => void;
  const held = new Promise<void>((resolve) => (open = resolve));
  const tasks: Promise<unknown>[] = [];
  while (!passwordHashing.load.full) tasks.push(passwordHashing.run(() => held));
  return {
    async release() {
      open();
      await Promise.all(tasks);
    },
  };
}

// Counters of each run's own: the other run, other files (and an earlier run within the minute) log
// in from 127.0.0.1 too, and a shared per-IP count would hold this run's logins back.
const clients: Redis[] = [];
function ownRedis(): Redis {
  const client = new Redis(REDIS_URL!, { keyPrefix: `test-${randomBytes(6).toString('hex')}:` });
  clients.push(client);
  return client;
}
afterAll(() => clients.forEach((client) => client.disconnect()));

for (const shared of REDIS_URL ? [false, true] : [false]) {
  describeEachDatabase(
    `login under a flood${shared ? ' (counters in Redis)' : ''}`,
    (api) => {
      let storeId: string;
      beforeAll(async () => {
        ({ storeId } = await api.createStore());
      });
      const person = (role: 'owner' | 'viewer' = 'viewer') =>
        addDashboardUser(api, storeId, role, `flood-${randomBytes(6).toString('hex')}@loja.example`);

      it(
        '20 parallel wrong passwords for one (IP, e-mail): at most 5 are checked, the rest are held',
        { timeout: 120_000 },
        async () => {
          const user = await person();
          const ip = `203.0.113.${1 + (randomBytes(1)[0]! % 250)}`;
          const answers = await Promise.all(
            Array.from({ length: 20 }, (_, i) => login(api, user.email, `wrong-${i}`, ip)),
          );
          const counts = tally(answers.map((a) => a.status));
          const checked = answers.filter((a) => a.text.includes(WRONG_PAIR)).length;
          expect(checked, JSON.stringify(counts)).toBeGreaterThanOrEqual(1);
          expect(checked, JSON.stringify(counts)).toBeLessThanOrEqual(5);
          // The rest were held (429) or, past the hashing gate's share of one client, refused unchecked (503).
          expect((counts[429] ?? 0) + (counts[503] ?? 0) + checked, JSON.stringify(counts)).toBe(20);
          // Guessing on: never more than 5 checked in all (a held attempt still counts in the window).
          let total = checked;
          for (let i = 0; i < 10; i++) {
            const next = await login(api, user.email, `again-${i}`, ip);
            if (next.text.includes(WRONG_PAIR)) total++;
          }
          expect(total).toBeLessThanOrEqual(5);
          expect((await login(api, user.email, user.password, ip)).status).toBe(429);
          // Another address signs in.
          expect((await login(api, user.email, user.password, '198.51.100.9')).status).toBe(303);
        },
      );

      it(
        '20 parallel wrong codes at the second step: 5 are checked, the rest are held',
        { timeout: 120_000 },
        async () => {
          const user = await person();
          const secret = await turnOnTwoStep(api, user);
          const first = await login(api, user.email, user.password);
          const half: DashboardSession = { cookie: sessionCookieOf(first), csrf: '' };
          half.csrf = csrfOf(
            (await dashboardRequest(api.baseUrl, half, 'GET', '/dashboard/login/verificar')).text,
          );
          const right = totpCode(secret, totpStep());
          const wrong = (i: number) => String((Number(right) + 1 + i) % 1_000_000).padStart(6, '0');
          const answers = await Promise.all(
            Array.from({ length: 20 }, (_, i) =>
              dashboardRequest(api.baseUrl, half, 'POST', '/dashboard/login/verificar', { code: wrong(i) }),
            ),
          );
          const counts = tally(answers.map((a) => a.status));
          expect(answers.filter((a) => a.text.includes(WRONG_CODE)).length, JSON.stringify(counts)).toBe(5);
          expect(counts[429]).toBe(15);
          const held = await dashboardRequest(api.baseUrl, half, 'POST', '/dashboard/login/verificar', {
            code: right,
          });
          expect(held.status).toBe(429);
        },
      );

      it(
        'a right password gives its attempt back: many logins in a row stay open',
        { timeout: 120_000 },
        async () => {
          const user = await person();
          for (let i = 0; i < 8; i++) expect((await login(api, user.email, user.password)).status).toBe(303);
          for (let i = 0; i < 4; i++) expect((await login(api, user.email, `wrong-${i}`)).status).toBe(401);
          expect((await login(api, user.email, user.password)).status).toBe(303);
        },
      );

      it(
        'a full hashing gate answers 503 with Retry-After in Portuguese, before hashing, counting no failure',
        { timeout: 120_000 },
        async () => {
          const user = await person('owner');
          const session = await dashboardLogin(api.baseUrl, user);
          const before = await api.db
            .selectFrom('audit_log')
            .select('id')
            .where('store_id', '=', storeId)
            .where('action', '=', 'login_failed')
            .execute();
          const gate = fillHashingGate();
          try {
            for (let i = 0; i < 6; i++) {
              const busy = await login(api, user.email, `wrong-${i}`);
              expect(busy.status).toBe(503);
              expect(Number(busy.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
              expect(busy.text).toContain('Muitas verificações de senha ao mesmo tempo');
            }
            // Every other place that hashes a password goes through the same gate.
            const change = await dashboardRequest(
              api.baseUrl,
              session,
              'POST',
              '/dashboard/configuracoes/conta/senha',
              { current: user.password, password: 'outra-senha-longa', confirmation: 'outra-senha-longa' },
            );
            expect(change.status).toBe(503);
            expect(change.headers.get('retry-after')).toMatch(/^\d+$/);
          } finally {
            await gate.release();
          }
          const after = await api.db
            .selectFrom('audit_log')
            .select('id')
            .where('store_id', '=', storeId)
            .where('action', '=', 'login_failed')
            .execute();
          expect(after.length).toBe(before.length);
          // None of the six refused attempts was counted against the pair.
          for (let i = 0; i < 4; i++) expect((await login(api, user.email, `wrong-${i}`)).status).toBe(401);
          expect((await login(api, user.email, user.password)).status).toBe(303);
        },
      );
    },
    () => ({ redis: shared ? ownRedis() : null, config: { trustProxy: ['127.0.0.1'] } }),
  );
}

/** Turns two-step verification on through Minha conta; returns the secret. */
async function turnOnTwoStep(api: TestApi, user: DashboardUser): Promise<string> {
  const session = await dashboardLogin(api.baseUrl, user);
  const setup = await dashboardRequest(
    api.baseUrl,
    session,
    'POST',
    '/dashboard/configuracoes/conta/duas-etapas/configurar',
  );
  const secret = /Chave: <code class="secret">([A-Z2-7]{32})<\/code>/.exec(setup.text)![1]!;
  const sealed = /name="setup" value="([^"]+)"/.exec(setup.text)![1]!;
  const on = await dashboardRequest(
    api.baseUrl,
    session,
    'POST',
    '/dashboard/configuracoes/conta/duas-etapas/ativar',
    { setup: sealed, code: totpCode(secret, totpStep()), password: user.password },
  );
  if (on.status !== 303) throw new Error(`two-step not turned on: ${on.status}`);
  return secret;
}
