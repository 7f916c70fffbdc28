import type { Command } from 'commander';
import { pino } from 'pino';
import { openServingDatabase } from '../../platform/db/migrations/migrate.js';
import { openPaymentProviders } from '../server/payment-providers.js';
import { startConfiguredReconciler } from '../../flows/reconcile-live-pix.js';
import { startConversionWorker } from '../../flows/send-meta-conversions.js';
import { startEmailWorker } from '../../flows/send-emails.js';
import { startDeliveryWorker } from '../../domain/webhooks/delivery/worker.js';
import { startCycleScheduler } from '../../domain/subscriptions/cycle-scheduler.js';
import { recurringChecks } from '../../flows/check-live-subscriptions.js';
import { loadConfigOrExit } from './context.js';
import { boundHeapGrowth } from './heap-growth.js';
import { exitIfCannotStart, shutdownDeadlineMs, stopOnSignals } from '../server/serve-lifecycle.js';

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description(
      'deliver webhooks, delivery e-mails and Meta conversion events, reconcile live Pix and bill subscription cycles, apart from the API (run serve with STOREFRONT_WORKER=off); several may run on PostgreSQL',
    )
    .action(async () => {
      const config = loadConfigOrExit();
      boundHeapGrowth();
      const log = pino({ level: config.logLevel });
      const db = await exitIfCannotStart(config, () => openServingDatabase(config.databaseUrl, log));
      const worker = startDeliveryWorker({ db: db.kysely, config, log });
      const mail = config.smtp ? startEmailWorker({ db: db.kysely, smtp: config.smtp, config, log }) : null;
      const conversions = startConversionWorker({ db: db.kysely, config, log });
      const payments = openPaymentProviders(db.kysely, config);
      const reconciler = startConfiguredReconciler(
        db.kysely,
        payments,
        config,
        log,
        recurringChecks(db.kysely, payments, config, log),
      );
      const cycles = startCycleScheduler({ db: db.kysely, payments, log });
      log.info(
        {
          dialect: db.dialect,
          delivery_email: mail !== null,
          meta_conversions: true,
          live_pix_reconciler: true,
          subscription_cycles: true,
        },
        'webhook worker started',
      );

      // Graceful: attempts in flight finish and are recorded; anything unfinished is retried later anyway.
      stopOnSignals(
        log,
        async () => {
          await Promise.all([
            worker.stop(),
            mail?.stop(),
            conversions.stop(),
            reconciler.stop(),
            cycles.stop(),
          ]);
          await payments.close();
          await db.close();
        },
        shutdownDeadlineMs(config),
      );
    });
}
