import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { DeliveryEmailStatus } from '../kernel/email-status.js';

/**
 * The service's e-mails wait in queues of one shape: a job per row they mail about (a sale's delivery
 * e-mail, an abandoned order's recovery e-mail), due at `next_attempt_at`, leased to one worker at a
 * time, deleted once settled. One worker drains every queue with the same claims and retries; what
 * the merchant sees of each e-mail lives on its row, written by the queue's `settle`.
 */
/** The e-mail worker's wake (platform/jobs/wake.ts): a job of one of its queues was queued for now or later. */
export const EMAIL_WAKE = 'email';

export interface EmailQueue {
  table: 'email_jobs' | 'recovery_email_jobs' | 'subscription_email_jobs';
  key: 'sale_id' | 'order_id' | 'subscription_id';
  /** Names the queue in logs and metrics. */
  name: 'delivery' | 'recovery' | 'cancellation';
  /** Writes where its row shows the e-mail's state, in the transaction that settles the job. */
  settle(trx: Kysely<Database>, id: string, result: SettledEmail): Promise<void>;
}

export interface SettledEmail {
  status: DeliveryEmailStatus;
  lastError: string | null;
  /** When a mail server accepted it (a successful attempt only). */
  sentAt: string | null;
  /** False when the job was dropped without an attempt (nothing left to send). */
  attempted: boolean;
}

/** A leased job of any queue; `id` is the row it mails about. */
export interface EmailJob {
  id: string;
  store_id: string;
  /** Attempts since it was last queued: the position in the retry schedule. */
  attempts: number;
  next_attempt_at: string;
  lease: string | null;
  created_at: string;
}

/** The recovery e-mail's queue (migration 0015); `email_jobs` is the delivery e-mail's. */
export interface RecoveryEmailJobsTable extends Omit<EmailJob, 'id'> {
  order_id: string;
}

/** The queue of the buyer's e-mail when the store cancels their subscription (migration 0027). */
export interface SubscriptionEmailJobsTable extends Omit<EmailJob, 'id'> {
  subscription_id: string;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    recovery_email_jobs: RecoveryEmailJobsTable;
    subscription_email_jobs: SubscriptionEmailJobsTable;
  }
}

interface JobRow extends Omit<EmailJob, 'id'> {
  sale_id: string;
  order_id: string;
  subscription_id: string;
}

/**
 * The queue tables as the shared queries see them: the same columns, keyed by `queue.key` (each table
 * really has only its own key column, and only `queue.key` is ever named).
 */
export const queueDb = (db: Kysely<Database>) => db as unknown as Kysely<Record<EmailQueue['table'], JobRow>>;

export const jobOf = (queue: EmailQueue, row: JobRow): EmailJob => {
  const { sale_id: _sale, order_id: _order, subscription_id: _subscription, ...rest } = row;
  return { ...rest, id: row[queue.key] };
};

export const DELIVERY_QUEUE: EmailQueue = {
  table: 'email_jobs',
  key: 'sale_id',
  name: 'delivery',
  async settle(trx, id, result) {
    await trx
      .updateTable('sales')
      .set({
        delivery_email_status: result.status,
        delivery_email_last_error: result.lastError,
        ...(result.attempted && { delivery_email_attempts: sql<number>`delivery_email_attempts + 1` }),
        ...(result.sentAt !== null && { delivery_email_sent_at: result.sentAt }),
      })
      .where('id', '=', id)
      .execute();
  },
};

export const RECOVERY_QUEUE: EmailQueue = {
  table: 'recovery_email_jobs',
  key: 'order_id',
  name: 'recovery',
  async settle(trx, id, result) {
    await trx
      .updateTable('orders')
      .set({
        recovery_email_status: result.status,
        recovery_email_last_error: result.lastError,
        ...(result.sentAt !== null && { recovery_email_sent_at: result.sentAt }),
      })
      .where('id', '=', id)
      .execute();
  },
};

export const CANCELLATION_QUEUE: EmailQueue = {
  table: 'subscription_email_jobs',
  key: 'subscription_id',
  name: 'cancellation',
  async settle(trx, id, result) {
    await trx
      .updateTable('subscriptions')
      .set({
        cancel_email_status: result.status,
        cancel_email_last_error: result.lastError,
        ...(result.sentAt !== null && { cancel_email_sent_at: result.sentAt }),
      })
      .where('id', '=', id)
      .execute();
  },
};
