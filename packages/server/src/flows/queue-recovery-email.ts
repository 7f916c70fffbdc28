import type { Kysely } from 'kysely';
import { reusedQuery } from '../platform/db/reused-query.js';
import type { Config } from '../platform/config/config.js';
import type { Database } from '../platform/db/schema.js';
import type { OrdersTable } from '../domain/orders/order-object.js';
import { orderItems } from '../domain/orders/order-object.js';
import { orderUrl } from '../domain/orders/order-links.js';
import type { OrderLinkConfig } from '../domain/orders/order-links.js';
import type { Customer } from '../domain/kernel/customer.js';
import type { StoresTable } from '../domain/stores/stores.js';
import { isoAfter, nowIso } from '../platform/values/time.js';
import { wakeOnCommit } from '../platform/jobs/wake.js';
import { EMAIL_WAKE, RECOVERY_QUEUE } from '../domain/email/email-queue.js';
import { mayMailFromTestMode } from '../domain/accounts/test-mail-policy.js';
import type { ComposedEmail } from '../platform/mail/smtp-mailer.js';
import { composeRecoveryEmail } from '../domain/email/template.js';

/** Why an order's recovery e-mail is not to be sent, or null when it is. */
async function skipReason(
  trx: Kysely<Database>,
  order: OrdersTable,
  mail: Pick<Config, 'smtp' | 'testMailAllow'>,
  dueNow: boolean,
): Promise<string | null> {
  if (mail.smtp === null) return 'The service has no SMTP_URL: nothing is sent.';
  // Anyone who opens a test-mode page can place an order with any address: the sweep does not relay
  // for strangers. The simulation is a key holder's act and sends like simulate_payment.
  const email = (JSON.parse(order.customer) as Customer).email ?? '';
  if (
    order.livemode === 0 &&
    !dueNow &&
    !(await mayMailFromTestMode(trx, order.store_id, email, mail.testMailAllow))
  )
    return "A test-mode order placed on the page is e-mailed only to the store's team and the addresses in STOREFRONT_TEST_MAIL_ALLOW.";
  return null;
}

/**
 * Queues an abandoned order's recovery e-mail in the transaction that abandons it, when its store has
 * the e-mail on: due `delay_minutes` after the abandonment, or now (`dueNow`, the test-mode
 * simulation). No SMTP_URL, or a test order's stranger: `skipped`. The job's key is the order, so
 * there is at most one per order. Returns the row as it now is.
 */
export async function queueRecoveryEmail(
  trx: Kysely<Database>,
  order: OrdersTable,
  store: Pick<StoresTable, 'recovery_email_enabled' | 'recovery_email_delay_minutes'>,
  mail: Pick<Config, 'smtp' | 'testMailAllow'>,
  dueNow: boolean,
): Promise<OrdersTable> {
  if (store.recovery_email_enabled !== 1 || order.abandoned_at === null) return order;
  const reason = await skipReason(trx, order, mail, dueNow);
  const status = reason === null ? 'pending' : 'skipped';
  await trx
    .updateTable('orders')
    .set({ recovery_email_status: status, recovery_email_last_error: reason })
    .where('id', '=', order.id)
    .execute();
  if (status === 'pending') {
    const now = nowIso();
    const due = dueNow
      ? now
      : isoAfter(store.recovery_email_delay_minutes * 60_000, new Date(order.abandoned_at));
    await trx
      .insertInto('recovery_email_jobs')
      .values({
        order_id: order.id,
        store_id: order.store_id,
        attempts: 0,
        next_attempt_at: due,
        lease: null,
        created_at: now,
      })
      .execute();
    await wakeOnCommit(trx, EMAIL_WAKE);
  }
  return { ...order, recovery_email_status: status, recovery_email_last_error: reason };
}

const deleteWaitingJob = reusedQuery(
  'drop waiting recovery e-mail',
  (db: Kysely<Database>, orderId: string) =>
    db.deleteFrom('recovery_email_jobs').where('order_id', '=', orderId).where('lease', 'is', null),
);

/**
 * In the transaction that pays or cancels an order: a recovery e-mail still waiting is not sent
 * (`skipped`). One a worker is sending at this moment is left to the worker, which checks the order
 * again before it sends.
 */
export async function dropRecoveryEmail(trx: Kysely<Database>, orderId: string): Promise<void> {
  const dropped = await deleteWaitingJob(trx, orderId);
  if (!dropped.numAffectedRows) return;
  await RECOVERY_QUEUE.settle(trx, orderId, {
    status: 'skipped',
    lastError: 'The order was paid or canceled before its recovery e-mail was due.',
    sentAt: null,
    attempted: false,
  });
}

export interface RecoveryEmailSource {
  order: Pick<OrdersTable, 'id' | 'status'>;
  to: { name: string; address: string } | null;
  email: ComposedEmail | null;
}

/**
 * An order's recovery e-mail as it is to be sent, read at send time: the store's current wording, the
 * order as it now stands (a paid or canceled one is not mailed), the link to its page.
 */
export async function loadRecoveryEmail(
  db: Kysely<Database>,
  config: OrderLinkConfig,
  orderId: string,
): Promise<RecoveryEmailSource | undefined> {
  const row = await db
    .selectFrom('orders')
    .innerJoin('stores', 'stores.id', 'orders.store_id')
    .selectAll('orders')
    .select(['stores.name as store_name', 'stores.recovery_email_subject', 'stores.recovery_email_body'])
    .where('orders.id', '=', orderId)
    .executeTakeFirst();
  if (!row) return undefined;
  const customer = JSON.parse(row.customer) as Customer;
  const link = orderUrl(config, row);
  const to = customer.email ? { name: customer.name ?? '', address: customer.email } : null;
  return {
    order: row,
    to,
    email:
      link === null
        ? null
        : composeRecoveryEmail({
            storeName: row.store_name,
            customerName: customer.name ?? 'cliente',
            products: orderItems(row).map((item) => item.nome),
            amountCents: row.amount_cents,
            paymentLink: link,
            subject: row.recovery_email_subject,
            body: row.recovery_email_body,
          }),
  };
}
