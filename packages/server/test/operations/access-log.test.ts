import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServe } from '../support/service-process.js';
import type { ServiceProcess } from '../support/service-process.js';
import { describeEachDatabase } from '../support/test-api.js';
import { eventually } from '../webhooks/delivery-harness.js';

const ORDER_TOKEN = 'ordtok0123456789abcdefghijklmnopqrstuvwxyzABCD';
const CALLBACK_TOKEN = 'cbtok0123456789abcdefghijklmnopqrstuvwxyzABCDEF';
const QUERY_KEY = 'sk_test_0123456789abcdefghijklmnopqrstuvwxyzAB';

/**
 * The access log of a real `serve`: order tokens, PSP callback tokens and anything in a query string
 * are secrets a log must not keep. Each line names the route's pattern and a redacted URL.
 */
describeEachDatabase('the access log', (api) => {
  let serve: ServiceProcess;
  let url: string;
  beforeAll(async () => {
    ({ process: serve, url } = await startServe(`access_log_${api.dialect}`, {
      DATABASE_URL: api.database.url,
      ...api.database.env,
    }));
  }, 90_000);
  afterAll(() => serve?.kill());

  it('logs the route pattern and the URL without tokens or query values', async () => {
    const { key } = await api.createStore();
    const sent = [
      fetch(`${url}/p/o/${ORDER_TOKEN}`),
      fetch(`${url}/p/o/${ORDER_TOKEN}/status`),
      fetch(`${url}/callbacks/pix/${CALLBACK_TOKEN}/pix`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"pix":[]}',
      }),
      fetch(`${url}/api/public/v1/checkouts?limit=5&api_key=${QUERY_KEY}`, {
        headers: { authorization: `Bearer ${key}` },
      }),
      fetch(`${url}/no/such/path?api_key=${QUERY_KEY}`),
    ];
    const statuses = await Promise.all(sent.map(async (res) => (await res).status));
    expect(statuses).toEqual([404, 404, 404, 400, 404]);

    const lines = await eventually(async () => {
      const logged = serve.logLines('request');
      return logged.length >= sent.length && logged;
    });
    const shown = lines.map(({ method, url: path, route, status }) => ({ method, url: path, route, status }));
    expect(shown).toEqual(
      expect.arrayContaining([
        { method: 'GET', url: '/p/o/:token', route: '/p/o/:token', status: 404 },
        { method: 'GET', url: '/p/o/:token/status', route: '/p/o/:token/status', status: 404 },
        { method: 'POST', url: '/callbacks/pix/:token/pix', route: '/callbacks/pix/:token/pix', status: 404 },
        {
          method: 'GET',
          url: '/api/public/v1/checkouts?limit=…&api_key=…',
          route: '/api/public/v1/checkouts',
          status: 400,
        },
        { method: 'GET', url: '/no/such/path?api_key=…', route: null, status: 404 },
      ]),
    );
    for (const secret of [ORDER_TOKEN, CALLBACK_TOKEN, QUERY_KEY, key])
      expect(serve.output).not.toContain(secret);
  });
});

const SECRET = 'segredo0123456789abcdefghijklmnopqrstuvwxyzAB';
const logLines: Record<string, unknown>[] = [];

/**
 * Tokens leave the access log by their path's prefix, not only by a matched route's `:token`: a link
 * with a stray suffix, another method, another case or a doubled slash is a 404 that keeps its secret.
 */
describeEachDatabase(
  'the access log on paths no route matches',
  (api) => {
    it.each([
      // [method, path sent, URL logged]
      ['GET', `/p/o/${SECRET}`, '/p/o/:token'],
      ['GET', `/p/o/${SECRET}/nada`, '/p/o/:token/nada'],
      ['GET', `/p/o/${SECRET}/`, '/p/o/:token/'],
      ['GET', `/P/O/${SECRET}`, '/P/O/:token'],
      ['GET', `//p/o/${SECRET}`, '//p/o/:token'],
      ['GET', `/p/%6F/${SECRET}`, '/p/%6F/:token'],
      ['POST', `/p/o/${SECRET}/nada`, '/p/o/:token/nada'],
      ['POST', `/callbacks/pix/${SECRET}/nada`, '/callbacks/pix/:token/nada'],
      ['GET', `/callbacks/pix/${SECRET}/pix`, '/callbacks/pix/:token/pix'],
      ['GET', `/dashboard/convite/${SECRET}`, '/dashboard/convite/:token'],
      ['GET', `/dashboard/convite/${SECRET}/nada`, '/dashboard/convite/:token/nada'],
      ['GET', `/dashboard/login/redefinir/${SECRET}/nada`, '/dashboard/login/redefinir/:token/nada'],
      ['GET', `/Dashboard/Login/Redefinir/${SECRET}?t=${SECRET}`, '/Dashboard/Login/Redefinir/:token?t=…'],
      ['GET', `/p/loja/produto?ref=${SECRET}`, '/p/loja/produto?ref=…'],
    ])('%s %s is logged as %s', async (method, path, shown) => {
      const seen = logLines.length;
      const res = await fetch(`${api.baseUrl}${path}`, { method, redirect: 'manual' });
      expect(res.status).toBeGreaterThanOrEqual(400);
      const lines = await eventually(async () => {
        const added = logLines.slice(seen).filter((line) => line.msg === 'request');
        return added.length > 0 && added;
      });
      expect(lines.map((line) => line.url)).toEqual([shown]);
      expect(JSON.stringify(logLines.slice(seen))).not.toContain(SECRET);
    });
  },
  { logLines },
);
