import type { Kysely } from 'kysely';
import { isoAfter, nowIso } from '../values/time.js';
import type { Database } from './schema.js';

interface BootstrapClaimsTable {
  name: string;
  claimed_at: string;
}

declare module './schema.js' {
  interface Tables {
    bootstrap_claims: BootstrapClaimsTable;
  }
}

/** How long a claim may stay without its result before it counts as abandoned. */
const ABANDONED_AFTER_MS = 60_000;

/**
 * Claims a one-time start-up task for this process; call it only when the task's result is missing.
 * Of several processes started at once exactly one gets true: the insert is a single statement and
 * the primary key decides, on both databases (PostgreSQL makes the others wait for the winner's
 * commit, SQLite serialises the writes). A claim older than a minute whose result is still missing
 * was left by a process that died midway, and is taken over.
 */
export async function claimOnce(db: Kysely<Database>, name: string): Promise<boolean> {
  await db
    .deleteFrom('bootstrap_claims')
    .where('name', '=', name)
    .where('claimed_at', '<', isoAfter(-ABANDONED_AFTER_MS))
    .execute();
  const result = await db
    .insertInto('bootstrap_claims')
    .values({ name, claimed_at: nowIso() })
    .onConflict((conflict) => conflict.column('name').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}
