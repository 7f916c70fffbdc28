import type { Command } from 'commander';
import { startService } from '../service.js';
import type { Config } from '../config/config.js';
import { fail, loadConfigOrExit } from './context.js';
import { boundHeapGrowth } from './heap-growth.js';

const LISTEN_FAILURES: Record<string, string> = {
  EADDRINUSE: 'the port is already in use; stop the other process or set PORT to a free port',
  EACCES: 'permission denied (ports below 1024 need privileges); set PORT to 1024 or above',
  EADDRNOTAVAIL: 'HOST is not an address of this machine; set HOST (127.0.0.1, 0.0.0.0, ::)',
};

/** Why the service could not listen, in one line naming PORT and HOST, instead of a stack trace. */
async function startOrExit(config: Config) {
  try {
    return await startService(config);
  } catch (error) {
    const reason = LISTEN_FAILURES[(error as NodeJS.ErrnoException).code ?? ''];
    if (reason === undefined) throw error;
    return fail(`cannot listen on HOST=${config.host} PORT=${config.port}: ${reason}.`);
  }
}

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('serve the API (and deliver webhooks unless STOREFRONT_WORKER=off)')
    .action(async () => {
      const config = loadConfigOrExit();
      boundHeapGrowth();
      const service = await startOrExit(config);
      console.log(`Storefront API at ${service.url}/api/public/v1 · reference: ${service.url}/docs`);
      if (service.demo) {
        // Printed once, on stdout, outside the logs: the only time this key is ever shown.
        console.log(
          [
            '',
            'Created the Demo store with a test API key holding every scope (shown only now):',
            `  ${service.demo.key}`,
            `Try: curl ${service.url}/api/public/v1/checkouts -H "Authorization: Bearer ${service.demo.key}"`,
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
