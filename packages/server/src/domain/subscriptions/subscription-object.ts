import type { DeliveryEmailStatus } from '../kernel/email-status.js';
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { type DbBool, toBool } from '../../platform/db/schema.js';
import { Nullable, Timestamp } from '../../platform/http/schemas.js';
import { Customer } from '../kernel/customer.js';
import { RecorrenciaSchema, RetryPolicySchema } from '../kernel/recurrence.js';
import type { Recorrencia, RetryPolicy } from '../kernel/recurrence.js';
import { fromCents } from '../../platform/values/money.js';

export const SUBSCRIPTION_STATUSES = ['pending', 'active', 'past_due', 'canceled', 'expired'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const CANCEL_REASONS = ['buyer', 'merchant', 'psp', 'payment_failed'] as const;
export type CancelReason = (typeof CANCEL_REASONS)[number];

export const SUBSCRIPTION_ID_PATTERN = /^sub_[0-9A-Za-z]{24}$/;

/**
 * The key of a subscription's first charge's metadata that names it, written with the charge and the
 * subscription in one transaction. A charge's metadata never changes, so a charge whose metadata lacks
 * the key starts no subscription: its payment need not look for one.
 */
export const FIRST_CHARGE_METADATA_KEY = 'subscription_id';

/** Whether a charge's metadata (its stored JSON) may name the subscription it starts. */
export const mayStartSubscription = (metadata: string | null): boolean =>
  metadata !== null && metadata.includes(`"${FIRST_CHARGE_METADATA_KEY}"`);

export interface SubscriptionsTable {
  id: string;
  store_id: string;
  livemode: DbBool;
  status: SubscriptionStatus;
  product_id: string;
  /** JSON Customer. */
  customer: string;
  /** JSON object of attribution keys, or null. */
  tracking: string | null;
  amount_cents: number;
  recorrencia: Recorrencia;
  retry_policy: RetryPolicy;
  anchor_date: string | null;
  /** Paid cycles so far: 0 while pending, 1 once the first payment authorised it. */
  cycle: number;
  current_period_start: string | null;
  current_period_end: string | null;
  next_charge_date: string | null;
  cancel_reason: CancelReason | null;
  canceled_at: string | null;
  order_id: string | null;
  first_charge_id: string;
  id_rec: string | null;
  next_action_date: string | null;
  claimed_until: string | null;
  next_check_at: string | null;
  created_at: string;
  /** The buyer's e-mail when the store cancels it (migration 0027): null when none was queued. */
  cancel_email_status: DeliveryEmailStatus | null;
  cancel_email_sent_at: string | null;
  cancel_email_last_error: string | null;
}

export type CycleStatus = 'sending' | 'scheduled' | 'paid' | 'failed' | 'canceled';

export interface SubscriptionCyclesTable {
  id: string;
  store_id: string;
  livemode: DbBool;
  subscription_id: string;
  cycle: number;
  txid: string;
  due_date: string;
  amount_cents: number;
  status: CycleStatus;
  failed_attempts: number;
  retries_requested: number;
  sale_id: string | null;
  next_check_at: string | null;
  created_at: string;
  paid_at: string | null;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    subscriptions: SubscriptionsTable;
    subscription_cycles: SubscriptionCyclesTable;
  }
}

const Day = (description: string) =>
  Nullable(Type.String({ format: 'date', description, example: '2026-12-22' }));

export const SubscriptionStatusSchema = Type.Unsafe<SubscriptionStatus>({
  type: 'string',
  enum: [...SUBSCRIPTION_STATUSES],
  description:
    '`pending`: waiting for the first payment and authorisation; `active`; `past_due`: a cycle’s charge failed and retries are left; `canceled`; `expired`: never authorised.',
});

export const Subscription = Type.Object(
  {
    object: Type.Literal('subscription'),
    id: Type.String({ example: 'sub_8mZ0b2kqP1sXw4TnYc7H1aQe' }),
    status: SubscriptionStatusSchema,
    product_id: Type.String({ format: 'uuid' }),
    customer: Customer,
    amount: Type.Number({ description: 'BRL billed each cycle, copied from the product at creation.' }),
    recorrencia: RecorrenciaSchema,
    retry_policy: RetryPolicySchema,
    cycle: Type.Integer({
      minimum: 0,
      description: 'Cycles paid so far: 0 while pending, 1 after the first payment.',
    }),
    current_period_start: Day('First day of the period paid for (store timezone); null while pending.'),
    current_period_end: Day('First day after the period paid for: the next cycle’s due date.'),
    next_charge_date: Day(
      'When the next cycle is due; its Pix Automático charge is sent 5 days earlier. Null when nothing more will be billed.',
    ),
    cancel_reason: Type.Unsafe<CancelReason | null>({
      type: ['string', 'null'],
      enum: [...CANCEL_REASONS, null],
      description:
        '`buyer`: revoked at their bank; `merchant`: canceled through the API or dashboard; `psp`: ended by a PSP; `payment_failed`: a cycle could not be paid. Null unless canceled.',
    }),
    canceled_at: Nullable(Timestamp),
    livemode: Type.Boolean(),
    created_at: Timestamp,
    order_id: Nullable(Type.String({ description: 'The purchase-page order that created it, if any.' })),
    first_charge_id: Type.String({
      description: 'The Pix charge whose code pays the first cycle and authorises the rest.',
    }),
    tracking: Type.Record(Type.String(), Type.String(), { description: 'Attribution it was created with.' }),
    pix: Nullable(
      Type.Object({
        id_rec: Type.String({
          description: 'The Pix Automático authorisation (`idRec`).',
          example: 'RR1234567820240115abcdefghijk',
        }),
        journey: Type.Literal('JORNADA_3'),
      }),
    ),
  },
  { $id: 'Subscription', title: 'Subscription' },
);
export type Subscription = Static<typeof Subscription>;

export function toSubscription(row: SubscriptionsTable): Subscription {
  return {
    object: 'subscription',
    id: row.id,
    status: row.status,
    product_id: row.product_id,
    customer: JSON.parse(row.customer) as Customer,
    amount: fromCents(row.amount_cents),
    recorrencia: row.recorrencia,
    retry_policy: row.retry_policy,
    cycle: row.cycle,
    current_period_start: row.current_period_start,
    current_period_end: row.current_period_end,
    next_charge_date: row.next_charge_date,
    cancel_reason: row.cancel_reason,
    canceled_at: row.canceled_at,
    livemode: toBool(row.livemode),
    created_at: row.created_at,
    order_id: row.order_id,
    first_charge_id: row.first_charge_id,
    tracking: row.tracking === null ? {} : (JSON.parse(row.tracking) as Record<string, string>),
    pix: row.id_rec === null ? null : { id_rec: row.id_rec, journey: 'JORNADA_3' },
  };
}
