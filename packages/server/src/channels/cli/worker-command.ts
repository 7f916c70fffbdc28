import type { Command } from 'commander';
import { openProcessLog } from '../../platform/config/process-log.js';
import { openServingDatabase } from '../../platform/db/migrations/migrate.js';
import { openPaymentProviders } from '../server/payment-providers.js';
import { startDuties } from '../server/node-duties.js';
import { loadConfigOrExit } from './context.js';
import { boundHeapGrowth } from './heap-growth.js';
import { exitIfCannotStart, shutdownDeadlineMs, stopOnSignals } from '../server/serve-lifecycle.js';

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description(
      'deliver webhooks, delivery e-mails and Meta conversion events, reconcile live Pix and card payments and bill subscription cycles, apart from the API (run serve with STOREFRONT_WORKER=off); several may run on PostgreSQL',
    )
    .action(async () => {
      const config = loadConfigOrExit();
      boundHeapGrowth();
      const log = openProcessLog(config.logLevel);
      const db = await exitIfCannotStart(config, () => openServingDatabase(config.databaseUrl, log));
      const payments = openPaymentProviders(db.kysely, config);
      const duties = startDuties({ db: db.kysely, config, log, payments }, ['worker']);
      const started = (name: string) => duties.started.includes(name);
      log.info(
        {
          dialect: db.dialect,
          delivery_email: started('delivery e-mail'),
          meta_conversions: started('meta conversions'),
          live_pix_reconciler: started('live pix reconciler'),
          card_reconciler: started('card reconciler'),
          subscription_cycles: started('subscription cycles'),
        },
        'webhook worker started',
      );

      // Graceful: attempts in flight finish and are recorded; anything unfinished is retried later anyway.
      stopOnSignals(
        log,
        async () => {
          await duties.stop();
          await payments.close();
          await db.close();
        },
        shutdownDeadlineMs(config),
      );
    });
}
