import type { Kysely } from 'kysely';
import { startPeriodic } from '../../platform/jobs/periodic.js';
import type { JobLog } from '../../platform/jobs/worker.js';
import type { Database, DbBool } from '../../platform/db/schema.js';
import { addToDailyTotals } from './daily-totals.js';
import { DEFAULT_TIMEZONE, localDate } from '../../platform/values/local-date.js';
import { storeTimezones } from '../kernel/store-timezone.js';

/**
 * Every time zone's offset and every change of offset falls on a quarter hour: all the instants of
 * one quarter hour share a local date in any zone, so a view is kept by its quarter hour and given
 * its store's day only when flushed.
 */
const QUARTER_HOUR_MS = 15 * 60 * 1000;

export interface PageViewCounter {
  /** One 200 answer to a GET of a product's purchase page. Memory only: no I/O, nothing about the buyer. */
  count(view: { storeId: string; productId: string; livemode: DbBool }): void;
  /** Writes what was counted so far (also done every `flushIntervalMs`). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left: a graceful shutdown loses no view. */
  stop(): Promise<void>;
}

/**
 * Page views of one HTTP process, added up in memory and written every `flushIntervalMs` as
 * increments of the daily totals, so several processes and nodes add rather than overwrite. A crash
 * loses at most one interval; a failed write keeps its counts for the next one.
 */
export function startPageViewCounter(
  db: Kysely<Database>,
  options: { flushIntervalMs: number; log: JobLog },
): PageViewCounter {
  // `store|product|livemode|quarter hour` → views.
  let pending = new Map<string, number>();

  function count(view: { storeId: string; productId: string; livemode: DbBool }): void {
    const key = `${view.storeId}|${view.productId}|${view.livemode}|${Math.floor(Date.now() / QUARTER_HOUR_MS)}`;
    pending.set(key, (pending.get(key) ?? 0) + 1);
  }

  async function flush(): Promise<void> {
    if (pending.size === 0) return;
    const taken = pending;
    pending = new Map();
    try {
      await write(taken);
    } catch (error) {
      for (const [key, views] of taken) pending.set(key, (pending.get(key) ?? 0) + views);
      throw error;
    }
  }

  async function write(taken: Map<string, number>): Promise<void> {
    const parsed = [...taken].map(([key, views]) => {
      const [storeId, productId, livemode, quarter] = key.split('|') as [string, string, string, string];
      return { storeId, productId, livemode: Number(livemode), at: Number(quarter) * QUARTER_HOUR_MS, views };
    });
    const zones = await storeTimezones(db, [...new Set(parsed.map((view) => view.storeId))]);
    await addToDailyTotals(
      db,
      parsed.map((view) => ({
        store_id: view.storeId,
        livemode: view.livemode,
        day: localDate(view.at, zones.get(view.storeId) ?? DEFAULT_TIMEZONE),
        product_id: view.productId,
        add: { page_views: view.views },
      })),
    );
  }

  const flusher = startPeriodic({
    name: 'page view flush',
    log: options.log,
    intervalMs: options.flushIntervalMs,
    run: flush,
  });

  return {
    count,
    flush,
    async stop() {
      await flusher.stop();
      await flush();
    },
  };
}
