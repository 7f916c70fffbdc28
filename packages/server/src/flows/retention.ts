import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type { Database } from '../platform/db/schema.js';
import { startPeriodic } from '../platform/jobs/periodic.js';
import type { JobLog, Worker } from '../platform/jobs/worker.js';
import { HISTORY_LIMIT } from '../domain/webhooks/delivery-object.js';

/**
 * One kind of old row retention removes. A stream that adds a table of transient records (PSP
 * callbacks, e-mail jobs) adds one rule to RETENTION_RULES; resource rows (stores, products, charges,
 * sales, endpoints…) never get one: they stay for ever.
 */
export interface RetentionRule {
  table: string;
  /** ISO timestamp column compared with the cutoff; indexed, so each batch is an index range. */
  column: string;
  /** Further conditions a row must meet to go (finished, no longer referenced), on the row alias `r`. */
  keep?: RawBuilder<unknown>;
}

/**
 * Ordered: attempts before events, so an event freed by an attempt pruned in this run goes in it too.
 * Delivery jobs need no rule: a job row is deleted as soon as it is delivered or out of retries.
 */
export const RETENTION_RULES: readonly RetentionRule[] = [
  {
    // Each endpoint's newest attempts stay whatever their age: its history page never empties.
    table: 'webhook_deliveries',
    column: 'created_at',
    keep: sql`r.id in (select n.id from webhook_deliveries n where n.endpoint_id = r.endpoint_id
      order by n.created_at desc, n.id desc limit ${sql.lit(HISTORY_LIMIT)})`,
  },
  {
    // An event stays while it is undelivered: not yet fanned out, still queued for an endpoint, or
    // named by a kept attempt (so "retry this delivery" still has something to send).
    table: 'events',
    column: 'created_at',
    keep: sql`r.dispatched_at is null
      or exists (select 1 from webhook_jobs j where j.event_id = r.id)
      or exists (select 1 from webhook_deliveries d where d.event_id = r.id)`,
  },
  // PSP callbacks are only ever hints (each payment is confirmed at the PSP): kept for the audit, then gone.
  { table: 'pix_callbacks', column: 'received_at' },
  // Meta conversion events once settled (sent or failed); one still pending stays until it is.
  { table: 'conversion_events', column: 'created_at', keep: sql`r.status = 'pending'` },
  // A subscription creation's progress matters only while it may be retried (the first charge's 30 min).
  { table: 'subscription_creations', column: 'created_at' },
];

export interface PruneOptions {
  olderThanDays: number;
  /** Rows per DELETE: each is one short write transaction, never a long lock on SQLite. */
  batchSize?: number;
  /** Pause between batches, letting other writers in. */
  pauseMs?: number;
  now?: Date;
  rules?: readonly RetentionRule[];
}

export type PruneReport = Record<string, number>;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes every row the rules let go that is older than the window; returns the count per table. */
export async function pruneOldRows(db: Kysely<Database>, options: PruneOptions): Promise<PruneReport> {
  const { olderThanDays, batchSize = 500, pauseMs = 5, now = new Date(), rules = RETENTION_RULES } = options;
  const cutoff = new Date(now.getTime() - olderThanDays * DAY_MS).toISOString();
  const report: PruneReport = {};
  for (const rule of rules) {
    const table = sql.table(rule.table);
    const column = sql.ref(`r.${rule.column}`);
    let deletedTotal = 0;
    // Rows the rule keeps are passed once: each batch starts where the previous one ended.
    let from = '';
    for (;;) {
      const oldest = sql`select r.id from ${table} r where ${column} < ${cutoff} and ${column} >= ${from}
        ${rule.keep ? sql`and not (${rule.keep})` : sql``} order by ${column} limit ${batchSize}`;
      const { rows } = await sql<Record<string, string>>`delete from ${table} where id in (${oldest})
        returning ${sql.ref(rule.column)}`.execute(db);
      deletedTotal += rows.length;
      if (rows.length < batchSize) break;
      from = rows.reduce((max, row) => (row[rule.column]! > max ? row[rule.column]! : max), from);
      await sleep(pauseMs);
    }
    report[rule.table] = deletedTotal;
  }
  return report;
}

/** Prunes now and then every `intervalMs` (an hour), never two runs at once; the timer does not hold the process. */
export function startRetention(
  db: Kysely<Database>,
  options: { olderThanDays: number; log: JobLog; intervalMs?: number },
): Worker {
  const { log } = options;
  return startPeriodic({
    name: 'retention',
    log,
    intervalMs: options.intervalMs ?? 60 * 60 * 1000,
    run: async () => {
      const report = await pruneOldRows(db, { olderThanDays: options.olderThanDays });
      if (Object.values(report).some((n) => n > 0)) log.info({ pruned: report }, 'retention pruned old rows');
    },
    failed: (err) => log.warn({ err }, 'retention prune failed; retrying at the next run'),
  });
}
