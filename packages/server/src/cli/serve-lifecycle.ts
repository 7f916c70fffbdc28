import type { Config } from '../config/config.js';
import type { ServiceLog } from '../service.js';
import { DEMO_OWNER_EMAIL } from '../stores/demo-store.js';
import type { DemoStore } from '../stores/demo-store.js';
import { fail } from './context.js';

const LISTEN_FAILURES: Record<string, string> = {
  EADDRINUSE: 'the port is already in use; stop the other process or set PORT to a free port',
  EACCES: 'permission denied (ports below 1024 need privileges); set PORT to 1024 or above',
  EADDRNOTAVAIL: 'HOST is not an address of this machine; set HOST (127.0.0.1, 0.0.0.0, ::)',
};

/**
 * Why the service (or, with STOREFRONT_PROCESSES > 1, an HTTP process) could not listen, in one line
 * naming PORT and HOST and a non-zero exit, instead of a stack trace.
 */
export async function exitIfCannotListen<T>(config: Config, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
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

/** SIGTERM or SIGINT runs `close` (which lets in-flight work finish) and exits: 0, or 1 if it failed. */
export function stopOnSignals(log: ServiceLog, close: () => Promise<void>): void {
  const shutdown = (signal: string) => {
    log.info({ signal }, 'shutting down');
    close().then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
