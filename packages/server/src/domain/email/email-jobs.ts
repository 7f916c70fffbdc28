/**
 * The delivery e-mail queue: one row per sale whose e-mail still has an attempt to make, deleted once
 * it is sent or has failed for good. What the merchant sees lives on the sale, not here.
 */
export interface EmailJobsTable {
  sale_id: string;
  store_id: string;
  /** Attempts since it was last queued: the position in the retry schedule. */
  attempts: number;
  /** When the job is due; while leased, when the lease expires. */
  next_attempt_at: string;
  /** Token of the worker sending it; its result is only written under the same token. */
  lease: string | null;
  created_at: string;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    email_jobs: EmailJobsTable;
  }
}
