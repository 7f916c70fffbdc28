/** The two server-side events: a buyer starting to pay (a page order) and a sale approved. */
export type ConversionKind = 'InitiateCheckout' | 'Purchase';

/** `pending` while it has an attempt to make; `sent` once Meta took it; `failed` when given up. */
export type ConversionStatus = 'pending' | 'sent' | 'failed';

/**
 * A conversion event: queued in its cause's transaction, sent by the worker, kept with Meta's answer
 * until retention. `event_id` is the cause's id (the order's for InitiateCheckout, the sale's for
 * Purchase): the same id the browser pixel sends, so Meta counts the pair once.
 */
export interface ConversionEventsTable {
  id: string;
  store_id: string;
  kind: ConversionKind;
  event_id: string;
  status: ConversionStatus;
  /** Attempts made so far: the position in the retry schedule. */
  attempts: number;
  /** When it is due; while leased, when the lease runs out; null once settled. */
  next_attempt_at: string | null;
  /** Token of the worker sending it; a result is only written under the same token. */
  lease: string | null;
  /** Meta's HTTP status on the last attempt (null: no answer). */
  response_status: number | null;
  /** Why the last attempt did not count, as the dashboard shows it; null once sent. */
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
  settled_at: string | null;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    conversion_events: ConversionEventsTable;
  }
}

export const CONVERSION_QUEUE = { table: 'conversion_events', key: 'id' } as const;

/** The conversion worker's wake (platform/jobs/wake.ts): an event was queued. */
export const CONVERSION_WAKE = 'conversions';
