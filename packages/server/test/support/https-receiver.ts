import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { Socket } from 'node:net';
import selfsigned from 'selfsigned';
import { scaled } from './time-scale.js';

/**
 * A real HTTPS webhook receiver for tests: self-signed certificate, records every request, answers
 * from a programmable queue.
 *
 *   const receiver = await startHttpsReceiver();
 *   receiver.respondWith({ status: 500 }, { status: 200 });   // then the default (200) forever
 *   ... deliver to `${receiver.url}/hook`, trusting `receiver.ca` ...
 *   const [first, second] = await receiver.waitForRequests(2);
 *   await receiver.close();
 *
 * `startHttpsReceiver({ port: 8443 })` listens on 8443 at a random 127.x.y.z address (one per
 * receiver, so parallel test files do not collide): its URL then passes the 443/8443 port rule of
 * checkWebhookUrl, provided `receiver.host` is in the allowed hosts.
 */

export type ReceiverResponse =
  | { status: number; body?: string; headers?: Record<string, string>; delayMs?: number }
  | { redirect: string; status?: 301 | 302 | 303 | 307 | 308 }
  | { hang: true };

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body exactly as received, decoded as UTF-8 (what a signature is computed over). */
  body: string;
  receivedAt: Date;
  /** 1-based number of the TLS connection it arrived on (shows keep-alive reuse). */
  connection: number;
}

export interface HttpsReceiver {
  /** Origin without a trailing slash, e.g. https://127.0.0.1:41234 */
  url: string;
  host: string;
  port: number;
  /** PEM certificate to trust (`ca` TLS option, or a file for NODE_EXTRA_CA_CERTS). */
  ca: string;
  requests: ReceivedRequest[];
  /** TLS connections accepted so far. */
  readonly connections: number;
  /** Queues one-shot responses, used in order; when the queue is empty the default response is used. */
  respondWith(...responses: ReceiverResponse[]): void;
  /** Resolves once at least `count` requests have arrived (rejects after timeoutMs). */
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Stops listening and drops every open connection, hanging ones included. */
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** Default 127.0.0.1, or a random 127.x.y.z when `port` is given without a host. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Answer used when the queue is empty. Default `{ status: 200, body: 'ok' }`. */
  defaultResponse?: ReceiverResponse;
}

const certCache = new Map<string, { key: string; cert: string }>();

/** Self-signed cert for CN=localhost, SANs DNS:localhost, IP:127.0.0.1 and the listening address. */
export function certificateFor(host: string): { key: string; cert: string } {
  let pem = certCache.get(host);
  if (!pem) {
    const altNames = [
      { type: 2, value: 'localhost' },
      { type: 7, ip: '127.0.0.1' },
      ...(host === '127.0.0.1' ? [] : [{ type: 7, ip: host }]),
    ];
    const generated = selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
      days: 2,
      keySize: 2048,
      algorithm: 'sha256',
      extensions: [
        { name: 'basicConstraints', cA: true },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames },
      ],
    });
    pem = { key: generated.private, cert: generated.cert };
    certCache.set(host, pem);
  }
  return pem;
}

function randomLoopback(): string {
  const octet = () => 1 + Math.floor(Math.random() * 254);
  return `127.${octet()}.${octet()}.${octet()}`;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

export async function startHttpsReceiver(opts: ReceiverOptions = {}): Promise<HttpsReceiver> {
  const port = opts.port ?? 0;
  const pickHost = () => opts.host ?? (port === 0 ? '127.0.0.1' : randomLoopback());
  const defaultResponse = opts.defaultResponse ?? { status: 200, body: 'ok' };
  const requests: ReceivedRequest[] = [];
  const queue: ReceiverResponse[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const connectionIds = new WeakMap<Socket, number>();
  const waiters = new Set<() => void>();
  let connections = 0;

  const answer = (res: ServerResponse, response: ReceiverResponse) => {
    if ('hang' in response) return; // keep the socket open and silent until close()
    if ('redirect' in response) {
      res.writeHead(response.status ?? 302, { location: response.redirect }).end();
      return;
    }
    const send = () => res.writeHead(response.status, response.headers).end(response.body ?? '');
    if (!response.delayMs) return send();
    const timer = setTimeout(() => {
      timers.delete(timer);
      send();
    }, response.delayMs);
    timers.add(timer);
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: new Date(),
        connection: connectionIds.get(req.socket) ?? 0,
      });
      for (const wake of waiters) wake();
      answer(res, queue.shift() ?? defaultResponse);
    });
  };

  let host = pickHost();
  let server: Server;
  // With a fixed port on a random loopback address, a collision just means trying another address.
  for (let attempt = 0; ; attempt++) {
    server = createServer({ ...certificateFor(host), keepAliveTimeout: 60_000 }, onRequest);
    server.on('secureConnection', (socket: Socket) => connectionIds.set(socket, ++connections));
    try {
      await listen(server, port, host);
      break;
    } catch (err) {
      const retryable = (err as NodeJS.ErrnoException).code === 'EADDRINUSE' && !opts.host && port !== 0;
      if (!retryable || attempt >= 20) throw err;
      host = pickHost();
    }
  }
  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;

  return {
    url: `https://${host}:${boundPort}`,
    host,
    port: boundPort,
    ca: certificateFor(host).cert,
    requests,
    get connections() {
      return connections;
    },
    respondWith(...responses) {
      queue.push(...responses);
    },
    waitForRequests(count, timeoutMs = scaled(10_000)) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(requests.slice());
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver got ${requests.length} of ${count} requests within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
