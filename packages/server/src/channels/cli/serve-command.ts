import type { Command } from 'commander';
import { serveWithProcesses } from '../cluster/primary.js';
import { startService } from '../server/service.js';
import { loadConfigOrExit } from './context.js';
import { boundHeapGrowth } from './heap-growth.js';
import {
  exitIfCannotStart,
  printDemoKey,
  printListening,
  shutdownDeadlineMs,
  stopOnSignals,
} from '../server/serve-lifecycle.js';

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('serve the API (and deliver webhooks unless STOREFRONT_WORKER=off)')
    .action(async () => {
      const config = loadConfigOrExit();
      boundHeapGrowth();
      if (config.processes > 1) return serveWithProcesses(config);
      const service = await exitIfCannotStart(config, () => startService(config));
      printListening(service.url);
      if (service.demo) printDemoKey(service.demo, service.url);
      stopOnSignals(service.app.log, service.close, shutdownDeadlineMs(config));
    });
}
