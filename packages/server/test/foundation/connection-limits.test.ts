import net from 'node:net';
import { request } from 'node:http';
import { afterAll, expect, it } from 'vitest';
import type { ConnectionLimits } from '../../src/platform/config/config.js';
import { describeEachDatabase } from '../support/test-api.js';

/** Small limits, so the test sees each one act. */
const LIMITS: ConnectionLimits = {
  maxPerProcess: 10,
  headersTimeoutMs: 1500,
  requestTimeoutMs: 3000,
  keepAliveTimeoutMs: 1000,
};

interface OpenSocket {
  socket: net.Socket;
  /** Everything the service sent, once it (or we) closed the socket. */
  closed: Promise<string>;
  isClosed(): boolean;
}

/** A connection that sends `head` (nothing by default) and then waits. */
async function openSocket(baseUrl: string, head = ''): Promise<OpenSocket> {
  const socket = net.connect(Number(new URL(baseUrl).port), '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = '';
  let done = false;
  socket.on('data', (chunk) => (received += chunk.toString('utf8')));
  socket.on('error', () => undefined); // a reset is one way of being closed
  const closed = new Promise<string>((resolve) =>
    socket.on('close', () => {
      done = true;
      resolve(received);
    }),
  );
  if (head) socket.write(head);
  return { socket, closed, isClosed: () => done };
}

/** GET /healthz on a connection of its own, closed after the answer. */
function healthz(baseUrl: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}/healthz`, { agent: false, headers: { connection: 'close' } });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Sockets are a process's file descriptors: each HTTP process holds at most STOREFRONT_MAX_CONNECTIONS,
 * a socket that sends nothing is closed by the headers timeout, a request that does not arrive in time
 * by the request timeout, and an idle keep-alive socket by the keep-alive timeout.
 */
describeEachDatabase(
  'connection limits',
  (api) => {
    const sockets: OpenSocket[] = [];
    afterAll(() => sockets.forEach(({ socket }) => socket.destroy()));
    const open = async (head?: string) => {
      const opened = await openSocket(api.baseUrl, head);
      sockets.push(opened);
      return opened;
    };

    it('closes connections beyond the cap at once, and idle ones after the headers timeout', async () => {
      const idle = [];
      for (let i = 0; i < LIMITS.maxPerProcess - 1; i++) idle.push(await open());
      // The last free place: the service answers.
      expect(await healthz(api.baseUrl)).toBe(200);

      const excess = [];
      for (let i = 0; i < LIMITS.maxPerProcess; i++) excess.push(await open());
      excess.push(...(await Promise.all([open(), open()])));
      // The first of them takes the tenth place; every one past it is closed as soon as it is accepted,
      // without a byte, while the idle ones are still held.
      for (const extra of excess.slice(1)) expect(await extra.closed).toBe('');
      expect(idle.filter((held) => held.isClosed())).toEqual([]);

      // The headers timeout frees them: each gets the 408 envelope and is closed.
      for (const held of idle) {
        const answer = await held.closed;
        expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
        expect(answer).toContain('"code":"request_timeout"');
      }
      expect(await healthz(api.baseUrl)).toBe(200);
    });

    it('a request whose body does not arrive within the request timeout gets 408 and is closed', async () => {
      const slow = await open(
        'POST /callbacks/pix/slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"pix":',
      );
      const answer = await slow.closed;
      expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(answer).toContain('"message":"The request took too long to arrive."');
    });

    it('an idle keep-alive socket is closed after the keep-alive timeout, which the answer announces', async () => {
      const kept = await open('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      const answer = await kept.closed;
      expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(answer).toMatch(/\r\nKeep-Alive: timeout=1\r\n/);
    });
  },
  { config: { connections: LIMITS } },
);
