import type { Command } from 'commander';
import { serveWithProcesses } from '../cluster/primary.js';
import { startService } from '../service.js';
import type { Config } from '../config/config.js';
import { fail, loadConfigOrExit } from './context.js';
import { boundHeapGrowth } from './heap-growth.js';
import { printDemoKey, printListening, stopOnSignals } from './serve-lifecycle.js';

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
      if (config.processes > 1) return serveWithProcesses(config);
      const service = await startOrExit(config);
      printListening(service.url);
      if (service.demo) printDemoKey(service.demo, service.url);
      stopOnSignals(service.app.log, service.close);
    });
}
