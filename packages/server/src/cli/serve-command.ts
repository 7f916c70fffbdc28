import type { Command } from 'commander';
import { startService } from '../service.js';
import { loadConfigOrExit } from './context.js';
import { boundHeapGrowth } from './heap-growth.js';

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('serve the API (and deliver webhooks unless STOREFRONT_WORKER=off)')
    .action(async () => {
      const config = loadConfigOrExit();
      boundHeapGrowth();
      const service = await startService(config);
      if (service.demo) {
        // Where a browser reaches the page: the public origin when one is set, else where we listen.
        const origin = process.env.STOREFRONT_PUBLIC_URL ? config.publicUrl : service.url;
        // Printed once, on stdout, outside the logs: the only time this key is ever shown.
        console.log(
          [
            '',
            'Created the Demo store with a test API key holding every scope (shown only now):',
            `  ${service.demo.key}`,
            `Try: curl ${service.url}/api/public/v1/checkouts -H "Authorization: Bearer ${service.demo.key}"`,
            `Buy its demo product (test mode): ${origin}${service.demo.pagePath}`,
            '',
          ].join('\n'),
        );
      }
      const shutdown = (signal: string) => {
        service.app.log.info({ signal }, 'shutting down');
        service.close().then(
          () => process.exit(0),
          (err) => {
            service.app.log.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', shutdown);
      process.once('SIGINT', shutdown);
    });
}
