import type { ServiceLog } from '../service.js';

/** Where to start: the API and its reference, on stdout once the service listens. */
export function printListening(url: string): void {
  console.log(`Storefront API at ${url}/api/public/v1 · reference: ${url}/docs`);
}

/** Printed once, on stdout, outside the logs: the only time this key is ever shown. */
export function printDemoKey(demo: { key: string; pagePath: string }, url: string): void {
  // Where a browser reaches the page: the public origin when one is set, else where we listen.
  const origin = process.env.STOREFRONT_PUBLIC_URL || url;
  console.log(
    [
      '',
      'Created the Demo store with a test API key holding every scope (shown only now):',
      `  ${demo.key}`,
      `Try: curl ${url}/api/public/v1/checkouts -H "Authorization: Bearer ${demo.key}"`,
      `Buy its demo product (test mode): ${origin.replace(/\/$/, '')}${demo.pagePath}`,
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
