import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { createGroupCommit } from '../../../platform/jobs/group-commit.js';
import { recordAttempts } from './record.js';
import type { FinishedAttempt, RecordedAttempt } from './record.js';

/** Attempt results written in group commits (see `createGroupCommit`): one transaction per batch. */
export function createResultWriter(db: Kysely<Database>, scheduleMs: readonly number[]) {
  return createGroupCommit<FinishedAttempt, RecordedAttempt>((batch) =>
    recordAttempts(db, batch, scheduleMs),
  );
}
