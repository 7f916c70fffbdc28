import type { Config } from '../../platform/config/config.js';
import type { ServiceLog } from './service.js';
import { DatabaseUnreachable } from '../../platform/db/migrations/migrate.js';
import { DEMO_OWNER_EMAIL } from '../../flows/demo-store.js';
import type { DemoStore } from '../../flows/demo-store.js';
import { fail } from './fail.js';

const NOT_AN_ADDRESS = 'HOST is not an address of this machine; set HOST (127.0.0.1, 0.0.0.0, ::)';
const LISTEN_FAILURES: Record<string, string> = {
  EADDRINUSE: 'the port is already in use; stop the other process or set PORT to a free port',
  EACCES: 'permission denied (ports below 1024 need privileges); set PORT to 1024 or above',
  EADDRNOTAVAIL: NOT_AN_ADDRESS,
  ENOTFOUND: NOT_AN_ADDRESS,
  EAI_AGAIN: NOT_AN_ADDRESS,
};

/**
 * Why the service (or, with STOREFRONT_PROCESSES > 1, an HTTP process, or the worker) could not
 * start, in one line and a non-zero exit instead of a stack trace: its database could not be
 * reached or opened, or it could not listen (naming PORT and HOST).
 */
export async function exitIfCannotStart<T>(config: Config, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    if (error instanceof DatabaseUnreachable) return fail(error.message);
    const reason = LISTEN_FAILURES[(error as NodeJS.ErrnoException).code ?? ''];
    if (reason === undefined) throw error;
    return fail(`cannot listen on HOST=${config.host} PORT=${config.port}: ${reason}.`);
  }
}

/** Where to start: the API and its reference, on stdout once the service listens. */
export function printListening(url: string): void {
  console.log(`Storefront API at ${url}/api/public/v1 · reference: ${url}/docs`);
}

/** Printed once, on stdout, outside the logs: the only time this key is ever shown. */
export function printDemoKey(demo: Omit<DemoStore, 'storeId'>, url: string): void {
  // Where a browser reaches the page: the public origin when one is set, else where we listen.
  const origin = process.env.STOREFRONT_PUBLIC_URL || url;
  console.log(
    [
      '',
      'Created the Demo store with a test API key holding every scope (shown only now):',
      `  ${demo.key}`,
      `Try: curl ${url}/api/public/v1/checkouts -H "Authorization: Bearer ${demo.key}"`,
      `Buy its demo product (test mode): ${origin.replace(/\/$/, '')}${demo.pagePath}`,
      `Its dashboard: set the owner's password (${DEMO_OWNER_EMAIL}) at this invite link, valid 72 hours, used once:`,
      `  ${origin.replace(/\/$/, '')}${demo.invitePath}`,
      '',
    ].join('\n'),
  );
}

/**
 * How long a stop may take before it is forced: a request that had just begun gets its whole
 * request timeout, and a webhook or PSP call in flight its own, then a few seconds to close.
 */
export function shutdownDeadlineMs(config: Config): number {
  const outbound = Math.max(config.webhookTimeoutMs, config.pspRequestTimeoutMs, config.meta.timeoutMs);
  return config.connections.requestTimeoutMs + outbound + 5_000;
}

/**
 * SIGTERM or SIGINT runs `close` (which lets in-flight work finish) and exits: 0, or 1 if it failed.
 * Signals that arrive while it runs are noted and change nothing: Ctrl-C on `npm start` delivers
 * SIGINT twice (the terminal's, then the one npm forwards), and the second must not cut the
 * requests still being answered short. A stop that outlasts `deadlineMs` is ended with exit 1.
 */
export function stopOnSignals(log: ServiceLog, close: () => Promise<void>, deadlineMs: number): void {
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.info({ signal }, 'already shutting down; in-flight requests are still being answered');
      return;
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    setTimeout(() => {
      log.error({ deadline_ms: deadlineMs }, 'shutdown did not finish in time; stopping now');
      process.exit(1);
    }, deadlineMs).unref();
    close().then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}
