import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';

/**
 * Who made a change, as the owners' audit log names them: a signed-in person (dashboard), an API key
 * (by its public prefix, `sk_live_abc1…`, never the secret) or the operator's CLI.
 */
export type Actor =
  | { kind: 'person'; userId: string; ip: string | null }
  | { kind: 'api_key'; prefix: string; ip: string | null }
  | { kind: 'cli' };

/**
 * Writes a change's audit entry; a flow calls it inside the change's own transaction, with what it
 * changed when the entry names it, so the change and its entry commit (or roll back) together.
 * Built by `auditing(…)` in domain/accounts/audit, or by a channel around `recordAudit`.
 */
export type OnWrite<T = void> = (trx: Kysely<Database>, result: T) => Promise<void>;

/** Who writes: the store every query is scoped by, and the mode its events carry. */
export interface WriteContext {
  storeId: string;
  livemode: boolean;
}
