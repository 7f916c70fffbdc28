import { afterAll, beforeAll, describe, it, expect } from 'vitest';
import type { Agent } from 'undici';
import { createWebhookAgent } from '../../src/platform/outbound/agent.js';
import type { ResolveHost, WebhookAgentOptions } from '../../src/platform/outbound/agent.js';
import { postWebhook, RESPONSE_BODY_CAP } from '../../src/platform/outbound/post.js';
import { failureReason } from '../../src/platform/outbound/failure-reason.js';
import { startHttpsReceiver } from '../support/https-receiver.js';
import type { HttpsReceiver } from '../support/https-receiver.js';

const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test' });
const headers = { 'content-type': 'application/json', 'user-agent': 'Storefront-Webhooks/test' };

let receiver: HttpsReceiver;
const agents: Agent[] = [];

function agent(opts: Partial<WebhookAgentOptions> = {}): Agent {
  const a = createWebhookAgent({ allowedHosts: new Set(['127.0.0.1']), tls: { ca: receiver.ca }, ...opts });
  agents.push(a);
  return a;
}

/** Fake DNS: every name resolves to the receiver's loopback address. */
const toLoopback: ResolveHost = async () => [{ address: '127.0.0.1', family: 4 }];

beforeAll(async () => {
  receiver = await startHttpsReceiver();
});

afterAll(async () => {
  await Promise.all(agents.map((a) => a.destroy()));
  await receiver.close();
});

describe('postWebhook against a real HTTPS receiver', () => {
  it('delivers a 200 and caps the response body it keeps', async () => {
    receiver.respondWith({ status: 200, body: 'x'.repeat(100_000) });
    const before = receiver.requests.length;
    const result = await postWebhook({
      dispatcher: agent(),
      url: `${receiver.url}/hook?a=1`,
      body,
      headers,
      timeoutMs: 5_000,
    });
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(result.error).toBeUndefined();
    expect(result.body).toHaveLength(RESPONSE_BODY_CAP);
    expect(result.durationMs).toBeGreaterThanOrEqual(0);

    const received = receiver.requests[before];
    expect(received).toMatchObject({ method: 'POST', path: '/hook?a=1', body });
    expect(received?.headers['content-type']).toBe('application/json');
  });

  it('reports a 500 as a failed attempt with its status', async () => {
    receiver.respondWith({ status: 500, body: 'boom' });
    const result = await postWebhook({
      dispatcher: agent(),
      url: receiver.url,
      body,
      headers,
      timeoutMs: 5_000,
    });
    expect(result).toMatchObject({ ok: false, status: 500, body: 'boom' });
  });

  it('does not follow a redirect', async () => {
    receiver.respondWith({ redirect: `${receiver.url}/elsewhere`, status: 302 });
    const before = receiver.requests.length;
    const result = await postWebhook({
      dispatcher: agent(),
      url: `${receiver.url}/moved`,
      body,
      headers,
      timeoutMs: 5_000,
    });
    expect(result).toMatchObject({ ok: false, status: 302 });
    await new Promise((r) => setTimeout(r, 100));
    expect(receiver.requests.slice(before).map((r) => r.path)).toEqual(['/moved']);
  });

  it('times out on a receiver that never answers', async () => {
    receiver.respondWith({ hang: true });
    const result = await postWebhook({
      dispatcher: agent(),
      url: receiver.url,
      body,
      headers,
      timeoutMs: 300,
    });
    expect(result).toMatchObject({ ok: false, status: null, error: 'timeout' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(2_000);
  });

  it('times out when headers arrive but the whole answer does not fit in the timeout', async () => {
    receiver.respondWith({ status: 200, delayMs: 1_000 });
    const result = await postWebhook({
      dispatcher: agent(),
      url: receiver.url,
      body,
      headers,
      timeoutMs: 300,
    });
    expect(result).toMatchObject({ ok: false, error: 'timeout' });
  });

  it('stops when the caller aborts', async () => {
    receiver.respondWith({ hang: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await postWebhook({
      dispatcher: agent(),
      url: receiver.url,
      body,
      headers,
      timeoutMs: 5_000,
      signal: controller.signal,
    });
    expect(result).toMatchObject({ ok: false, status: null, error: 'aborted' });
  });

  it('reuses one keep-alive connection for consecutive posts', async () => {
    const dispatcher = agent();
    const before = receiver.connections;
    const first = await postWebhook({ dispatcher, url: receiver.url, body, headers, timeoutMs: 5_000 });
    const second = await postWebhook({ dispatcher, url: receiver.url, body, headers, timeoutMs: 5_000 });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(receiver.connections - before).toBe(1);
    const [a, b] = receiver.requests.slice(-2);
    expect(a?.connection).toBe(b?.connection);
  });

  it('rejects the self-signed certificate unless it is trusted', async () => {
    const untrusted = createWebhookAgent({ allowedHosts: new Set(['127.0.0.1']) });
    agents.push(untrusted);
    const result = await postWebhook({
      dispatcher: untrusted,
      url: receiver.url,
      body,
      headers,
      timeoutMs: 5_000,
    });
    expect(result.ok).toBe(false);
    expect(result.status).toBeNull();
    expect(result.error).toMatch(/SELF_SIGNED|self-signed/i);
    expect(failureReason(result, 5_000)).toBe(
      'TLS error: DEPTH_ZERO_SELF_SIGNED_CERT (the certificate must be valid for the host and trusted)',
    );
  });

  it('refuses plain http without sending anything', async () => {
    const result = await postWebhook({
      dispatcher: agent(),
      url: `http://127.0.0.1:${receiver.port}/`,
      body,
      headers,
      timeoutMs: 5_000,
    });
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error).toMatch(/^EBLOCKEDADDRESS/);
  });
});

describe('connect-time address checks', () => {
  it('refuses a public-looking name that resolves to a loopback address', async () => {
    const before = receiver.requests.length;
    const dispatcher = agent({ allowedHosts: new Set(), resolve: toLoopback });
    const result = await postWebhook({
      dispatcher,
      url: `https://hooks.example.com:${receiver.port}/`,
      body,
      headers,
      timeoutMs: 5_000,
    });
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error).toMatch(
      /^EBLOCKEDADDRESS: hooks\.example\.com resolves to non-public address 127\.0\.0\.1/,
    );
    expect(receiver.requests.length).toBe(before);
  });

  it('refuses a name when any of its addresses is not public', async () => {
    const mixed: ResolveHost = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '::1', family: 6 },
    ];
    const dispatcher = agent({ allowedHosts: new Set(), resolve: mixed });
    const result = await postWebhook({
      dispatcher,
      url: 'https://mixed.example/',
      body,
      headers,
      timeoutMs: 5_000,
    });
    expect(result.error).toMatch(/^EBLOCKEDADDRESS: .*::1/);
  });

  it('connects to a name resolving to loopback when that name is allowed', async () => {
    const dispatcher = agent({ allowedHosts: new Set(['localhost']), resolve: toLoopback });
    const result = await postWebhook({
      dispatcher,
      url: `https://localhost:${receiver.port}/allowed`,
      body,
      headers,
      timeoutMs: 5_000,
    });
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(receiver.requests.at(-1)?.path).toBe('/allowed');
  });

  it('refuses a non-public IP literal unless it is allowed', async () => {
    const blocked = await postWebhook({
      dispatcher: agent({ allowedHosts: new Set() }),
      url: receiver.url,
      body,
      headers,
      timeoutMs: 5_000,
    });
    expect(blocked.error).toMatch(/^EBLOCKEDADDRESS: refusing non-public address 127\.0\.0\.1/);
    // What the merchant reads names the rule, never the address the name resolved to.
    const reason = failureReason(blocked, 5_000);
    expect(reason).toBe(
      'refused: the host resolves to an address that is not public (private, loopback or reserved)',
    );
    expect(reason).not.toContain('127.');

    const mapped = await postWebhook({
      dispatcher: agent({ allowedHosts: new Set() }),
      url: `https://[::ffff:127.0.0.1]:${receiver.port}/`,
      body,
      headers,
      timeoutMs: 5_000,
    });
    expect(mapped.error).toMatch(/^EBLOCKEDADDRESS/);

    const allowed = await postWebhook({
      dispatcher: agent({ allowedHosts: new Set(['127.0.0.1']) }),
      url: receiver.url,
      body,
      headers,
      timeoutMs: 5_000,
    });
    expect(allowed).toMatchObject({ ok: true, status: 200 });
  });

  it('uses the system resolver by default (localhost is refused)', async () => {
    const dispatcher = agent({ allowedHosts: new Set() });
    const result = await postWebhook({
      dispatcher,
      url: `https://localhost:${receiver.port}/`,
      body,
      headers,
      timeoutMs: 5_000,
    });
    expect(result.error).toMatch(/^EBLOCKEDADDRESS: localhost resolves to non-public address/);
  });
});

describe('https receiver on port 8443', () => {
  it('listens on a random loopback address so its URL passes the port rule', async () => {
    const r8443 = await startHttpsReceiver({ port: 8443 });
    try {
      expect(r8443.url).toMatch(/^https:\/\/127\.\d+\.\d+\.\d+:8443$/);
      const dispatcher = createWebhookAgent({ allowedHosts: new Set([r8443.host]), tls: { ca: r8443.ca } });
      agents.push(dispatcher);
      const result = await postWebhook({
        dispatcher,
        url: `${r8443.url}/hook`,
        body,
        headers,
        timeoutMs: 5_000,
      });
      expect(result).toMatchObject({ ok: true, status: 200 });
      const [received] = await r8443.waitForRequests(1);
      expect(received?.body).toBe(body);
    } finally {
      await r8443.close();
    }
  });
});
