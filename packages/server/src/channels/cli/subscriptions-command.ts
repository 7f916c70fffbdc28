import type { Command } from 'commander';
import { runCycles } from '../../flows/run-cycles.js';
import type { CycleRunReport } from '../../flows/run-cycles.js';
import { isCalendarDate } from '../../platform/values/local-date.js';
import { print } from './context.js';
import { fail } from '../server/fail.js';
import { withProviders } from './pix-provider-command.js';

function calendarDate(raw: string): string {
  if (!isCalendarDate(raw)) fail(`--as-of must be a calendar day written YYYY-MM-DD, got "${raw}"`);
  return raw;
}

function describe(report: CycleRunReport): string {
  const lines = [
    `Subscription cycles as of ${report.as_of ?? 'today (each store’s own day, in its time zone)'}${report.store_id ? ` for store ${report.store_id}` : ''}:`,
    ...report.charges_sent.map(
      (c) => `  charge sent: ${c.subscription_id} cycle ${c.cycle}, due ${c.due_date}`,
    ),
    ...report.retries_requested.map(
      (r) => `  retry asked: ${r.subscription_id} cycle ${r.cycle} on ${r.date}`,
    ),
    ...report.canceled.map((c) => `  canceled (${c.reason}): ${c.subscription_id}`),
    ...report.expired.map((id) => `  expired (never authorised): ${id}`),
    ...report.failed.map((f) => `  failed, retried on the next run: ${f.subscription_id}: ${f.error}`),
  ];
  if (lines.length === 1) lines.push('  nothing was due.');
  return lines.join('\n');
}

export function registerSubscriptionsCommand(program: Command): void {
  const subscriptions = program.command('subscriptions').description('subscriptions through Pix Automático');
  subscriptions
    .command('run-cycles')
    .description(
      'run the cycle scheduler once, as the worker does: send every cycle charge due by then, ask for retries, apply expiries, and print what it did',
    )
    .option('--store <id>', 'only this store')
    .option(
      '--as-of <YYYY-MM-DD>',
      'play that day as if it had come, for every store (staging, tests, catching up); default each store’s today in its time zone',
      calendarDate,
    )
    .option('--json', 'print one JSON object')
    .action(async (options: { store?: string; asOf?: string; json?: boolean }) => {
      // Live subscriptions' charges go to their stores' PSPs.
      await withProviders(async (db, payments) => {
        const report = await runCycles(db.kysely, payments, { asOf: options.asOf, storeId: options.store });
        print(!!options.json, report, describe(report));
      });
    });
}
