import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';

export interface WebhookQueueStats {
  jobs: number;
  oldestDueAgeSeconds: number;
  undispatchedEvents: number;
}

/**
 * For metrics, read at scrape time: the queue's depth, how late its most overdue job is, and the
 * outbox backlog. The earliest `next_attempt_at` comes off its index; a leased job's is in the future,
 * so jobs being sent never count as overdue. The backlog count uses the undispatched partial index.
 */
export async function webhookQueueStats(db: Kysely<Database>, now = Date.now()): Promise<WebhookQueueStats> {
  const [depth, earliest, backlog] = await Promise.all([
    db
      .selectFrom('webhook_jobs')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('webhook_jobs')
      .select((eb) => eb.fn.min('next_attempt_at').as('at'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('dispatched_at', 'is', null)
      .executeTakeFirstOrThrow(),
  ]);
  const dueSince = earliest.at ? Date.parse(earliest.at) : now;
  return {
    jobs: Number(depth.n),
    oldestDueAgeSeconds: Math.max(0, (now - dueSince) / 1000),
    undispatchedEvents: Number(backlog.n),
  };
}
