import net from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { startServe } from '../support/service-process.js';
import { eventually } from '../webhooks/delivery-harness.js';
import type { ServiceProcess } from '../support/service-process.js';
import { describeEachDatabase } from '../support/test-api.js';

/**
 * A request whose body has not arrived yet: it resolves `started` once the service has read its
 * headers (it answers `100 Continue`), and `finish` sends the body and resolves with the whole reply.
 */
function heldRequest(baseUrl: string) {
  const { port } = new URL(baseUrl);
  const socket = net.connect(Number(port), '127.0.0.1');
  let reply = '';
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(reply)));
  const started = new Promise<void>((resolve, reject) => {
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) resolve();
    });
    socket.on('error', reject);
  });
  socket.write(
    'POST /callbacks/pix/held-open HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      'Content-Length: 2\r\nExpect: 100-continue\r\n\r\n',
  );
  return {
    started,
    async finish(): Promise<string> {
      socket.write('{}');
      return closed;
    },
  };
}

/**
 * Ctrl-C on `npm start` delivers SIGINT twice: the terminal's and the one npm forwards. The second
 * arrives while the first is letting in-flight requests finish, and must not end them.
 */
describeEachDatabase('a second stop signal during a graceful stop', (api) => {
  let serve: ServiceProcess | null = null;
  afterEach(async () => {
    await serve?.kill('SIGKILL');
    serve = null;
  });

  for (const processes of ['1', '2']) {
    it(`lets the in-flight request finish with its answer (STOREFRONT_PROCESSES=${processes})`, async () => {
      const started = await startServe(`signals_${processes}_${api.dialect}`, {
        DATABASE_URL: api.database.url,
        ...api.database.env,
        STOREFRONT_PROCESSES: processes,
      });
      serve = started.process;
      // Every HTTP process is up, so each one's stop is seen below.
      await eventually(
        async () => serve!.output.match(/"msg":"Server listening at/g)?.length === Number(processes),
      );
      const request = heldRequest(started.url);
      await request.started;

      serve.child.kill('SIGINT');
      // With several HTTP processes, the primary stops each of them (SIGTERM): all are stopping.
      const stopping = processes === '1' ? 1 : 1 + Number(processes);
      await eventually(async () => serve!.logLines('shutting down').length === stopping);
      serve.child.kill('SIGINT');
      await serve.waitFor(/"msg":"already shutting down; in-flight requests are still being answered"/);

      const reply = await request.finish();
      expect(reply).toMatch(/\r\nHTTP\/1\.1 404 Not Found\r\n/);
      expect(reply).toMatch(/\r\nconnection: close\r\n/i);
      expect(reply).toContain('"message":"Unknown callback URL."');
      await serve.exited;
      expect(serve.exit).toEqual({ code: 0, signal: null });
    }, 90_000);
  }
});
