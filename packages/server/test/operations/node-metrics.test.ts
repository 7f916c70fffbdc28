import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceProcess } from '../support/service-process.js';
import { eventually } from '../webhooks/delivery-harness.js';

const TOKEN = 'node-metrics-token-0123456789';

/**
 * One request on a connection of its own: node:cluster hands out connections, not requests, so this
 * is what spreads requests over the HTTP processes.
 */
function onNewConnection(url: string, headers: Record<string, string> = {}, body?: unknown) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(url, {
      method: payload ? 'POST' : 'GET',
      agent: false,
      headers: { ...headers, ...(payload && { 'content-type': 'application/json' }) },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** The value of one sample line (`name{labels} value`) of an exposition, or undefined. */
function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('GET /metrics with STOREFRONT_PROCESSES=2 (SQLite)', () => {
  const databasePath = join(mkdtempSync(join(tmpdir(), 'sf-node-metrics-')), 'storefront.sqlite');
  let serve: ServiceProcess;
  let url: string;
  let key: string;
  const scrape = () => onNewConnection(`${url}/metrics`, { authorization: `Bearer ${TOKEN}` });

  beforeAll(async () => {
    serve = new ServiceProcess('serve', 'node_metrics', {
      DATABASE_URL: `sqlite:${databasePath}`,
      STOREFRONT_PROCESSES: '2',
      STOREFRONT_METRICS_TOKEN: TOKEN,
    });
    const [, port] = await serve.waitFor(/"port":(\d+),"msg":"serving with several HTTP processes"/, 60_000);
    url = `http://127.0.0.1:${port}`;
    await eventually(async () => serve.output.split('"msg":"Server listening at').length === 3, 60_000);
    // The primary makes the Demo store once an HTTP process listens: its key may come just after.
    [key] = await serve.waitFor(/sk_test_[0-9A-Za-z]{40}/, 60_000);
  }, 90_000);

  afterAll(async () => {
    await serve?.kill('SIGKILL');
  });

  it('answers for the whole node whichever process is scraped, the primary’s duties included', async () => {
    const before = await scrape();
    expect(before.status).toBe(200);
    const healthz =
      'storefront_http_request_duration_seconds_count{method="GET",route="/healthz",status_code="200"}';
    const base = sample(before.text, healthz) ?? 0;

    const checks = await Promise.all(Array.from({ length: 20 }, () => onNewConnection(`${url}/healthz`)));
    expect(checks.every((res) => res.status === 200)).toBe(true);
    // Both HTTP processes served some of them, so a per-process count would fall short somewhere.
    const servedBy = await eventually(async () => {
      const pids = serve
        .logLines('request')
        .filter((line) => line.url === '/healthz')
        .map((line) => line.pid);
      return pids.length >= 20 && new Set(pids);
    });
    expect(servedBy.size).toBe(2);
    for (let i = 0; i < 6; i++) expect(sample((await scrape()).text, healthz)).toBe(base + 20);

    // Expiry is a node duty: only the primary runs it, so seeing it proves its registry is included.
    const created = await onNewConnection(
      `${url}/api/public/v1/payments/pix`,
      { authorization: `Bearer ${key}` },
      { amount: 12.5 },
    );
    expect(created.status).toBe(201);
    const charge = JSON.parse(created.text) as { id: string };
    const db = new SqliteDatabase(databasePath);
    db.pragma('busy_timeout = 5000');
    db.prepare('update pix_charges set expires_at = ? where id = ?').run(
      new Date(Date.now() - 1000).toISOString(),
      charge.id,
    );
    db.close();
    const expired = 'storefront_pix_charges_total{outcome="expired",mode="test"}';
    const text = await eventually(async () => {
      const res = await scrape();
      return sample(res.text, expired) === 1 && res.text;
    }, 30_000);
    expect(sample(text, 'storefront_pix_charges_total{outcome="created",mode="test"}')).toBe(1);
  }, 60_000);
});
