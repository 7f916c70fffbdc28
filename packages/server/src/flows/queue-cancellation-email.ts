import type { Kysely } from 'kysely';
import type { Config } from '../platform/config/config.js';
import type { Database } from '../platform/db/schema.js';
import { formatBrl } from '../platform/values/money.js';
import { nowIso } from '../platform/values/time.js';
import { wakeOnCommit } from '../platform/jobs/wake.js';
import type { Customer } from '../domain/kernel/customer.js';
import { EMAIL_WAKE } from '../domain/email/email-queue.js';
import { composeCancellationEmail } from '../domain/email/template.js';
import type { ComposedEmail } from '../platform/mail/smtp-mailer.js';
import { PER_PERIOD } from '../domain/subscriptions/periods.js';
import type { SubscriptionsTable } from '../domain/subscriptions/subscription-object.js';

/**
 * Queues the buyer's e-mail that the store canceled their subscription, in the transaction that
 * cancels it. No e-mail address: nothing. No SMTP_URL: `skipped` (shown on the subscription's row).
 * It is the store's own act, like a test-mode simulation, so a test subscription's buyer is written
 * to as well. The job's key is the subscription: at most one per subscription.
 */
export async function queueCancellationEmail(
  trx: Kysely<Database>,
  row: SubscriptionsTable,
  mail: Pick<Config, 'smtp'>,
): Promise<void> {
  if (!(JSON.parse(row.customer) as Customer).email) return;
  const status = mail.smtp === null ? 'skipped' : 'pending';
  await trx
    .updateTable('subscriptions')
    .set({
      cancel_email_status: status,
      cancel_email_last_error: mail.smtp === null ? 'The service has no SMTP_URL: nothing is sent.' : null,
    })
    .where('id', '=', row.id)
    .execute();
  if (status === 'skipped') return;
  const now = nowIso();
  await trx
    .insertInto('subscription_email_jobs')
    .values({
      subscription_id: row.id,
      store_id: row.store_id,
      attempts: 0,
      next_attempt_at: now,
      lease: null,
      created_at: now,
    })
    .onConflict((oc) => oc.column('subscription_id').doNothing())
    .execute();
  await wakeOnCommit(trx, EMAIL_WAKE);
}

export interface CancellationEmailSource {
  to: { name: string; address: string } | null;
  email: ComposedEmail;
}

/** The cancellation e-mail as it is to be sent, read at send time (the store's name as it now is). */
export async function loadCancellationEmail(
  db: Kysely<Database>,
  subscriptionId: string,
): Promise<CancellationEmailSource | undefined> {
  const row = await db
    .selectFrom('subscriptions')
    .innerJoin('stores', 'stores.id', 'subscriptions.store_id')
    .leftJoin('products', (join) =>
      join
        .onRef('products.id', '=', 'subscriptions.product_id')
        .onRef('products.store_id', '=', 'subscriptions.store_id'),
    )
    .selectAll('subscriptions')
    .select(['stores.name as store_name', 'products.nome as product_name'])
    .where('subscriptions.id', '=', subscriptionId)
    .executeTakeFirst();
  if (!row) return undefined;
  const customer = JSON.parse(row.customer) as Customer;
  return {
    to: customer.email ? { name: customer.name ?? '', address: customer.email } : null,
    email: composeCancellationEmail({
      storeName: row.store_name,
      customerName: customer.name ?? null,
      product: row.product_name ?? 'sua assinatura',
      amountPerPeriod: `${formatBrl(row.amount_cents)} ${PER_PERIOD[row.recorrencia]}`,
    }),
  };
}
