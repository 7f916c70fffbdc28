import type { Kysely } from 'kysely';
import type { Config } from '../platform/config/config.js';
import type { Database } from '../platform/db/schema.js';
import { invalidRequest } from '../platform/http/api-error.js';
import type { Customer } from '../domain/kernel/customer.js';
import { countEmail } from '../platform/metrics/metrics.js';
import type { Sale, SalesTable } from '../domain/sales/sale-object.js';
import { nowIso } from '../platform/values/time.js';
import type { DeliveryEmailStatus } from '../domain/kernel/email-status.js';
import { strangerMailRefusal } from '../domain/accounts/test-mail-policy.js';
import type { DeliveryMail } from '../domain/accounts/test-mail-policy.js';
import type { EmailJobsTable } from '../domain/email/email-jobs.js';
import { wakeOnCommit } from '../platform/jobs/wake.js';
import { EMAIL_WAKE } from '../domain/email/email-queue.js';
import { recordAudit } from '../domain/accounts/audit.js';
import type { Actor } from '../domain/kernel/write-context.js';

/** Where a sale's delivery e-mail goes: its customer's address, if any. */
export function recipientOf(sale: Pick<SalesTable, 'customer'>): string | null {
  if (sale.customer === null) return null;
  return (JSON.parse(sale.customer) as Customer).email ?? null;
}

function jobFor(sale: Pick<SalesTable, 'id' | 'store_id'>, now: string): EmailJobsTable {
  return {
    sale_id: sale.id,
    store_id: sale.store_id,
    attempts: 0,
    next_attempt_at: now,
    lease: null,
    created_at: now,
  };
}

/**
 * The delivery e-mail columns of a new approved sale, decided before it is written so the sale is
 * inserted once, with them. No e-mail address: nothing (`delivery_email` null). No SMTP_URL:
 * `skipped`. A test sale paid by an anonymous visitor, for an address outside the store's team and
 * the allow list: `skipped`, with the reason in `last_error`. Otherwise `pending`: once the sale is
 * inserted, `queueDeliveryEmail` adds the job the worker picks up.
 */
export async function deliveryEmailOf(
  trx: Kysely<Database>,
  sale: SalesTable,
  mail: DeliveryMail,
): Promise<SalesTable> {
  const recipient = recipientOf(sale);
  if (recipient === null) return sale;
  const refusal =
    mail.smtp !== null && mail.onlyTo && sale.livemode === 0
      ? await strangerMailRefusal(trx, sale.store_id, recipient, mail.onlyTo)
      : null;
  const status: DeliveryEmailStatus = mail.smtp === null || refusal !== null ? 'skipped' : 'pending';
  return {
    ...sale,
    delivery_email_status: status,
    delivery_email_attempts: 0,
    delivery_email_sent_at: null,
    delivery_email_last_error: refusal,
  };
}

/**
 * Queues the delivery e-mail of a sale just inserted with `deliveryEmailOf`'s columns, in the sale's
 * own transaction: call it from every path that creates an approved sale, right after inserting it.
 */
export async function queueDeliveryEmail(trx: Kysely<Database>, sale: SalesTable): Promise<void> {
  if (sale.delivery_email_status !== 'pending') return;
  await trx.insertInto('email_jobs').values(jobFor(sale, nowIso())).execute();
  await wakeOnCommit(trx, EMAIL_WAKE);
}

/**
 * Counts a sale's delivery e-mail skipped for want of SMTP_URL; call once the sale's transaction
 * committed. Sent, retried and failed e-mails are counted by the worker that sends them.
 */
export function countSkippedEmail(sale: Sale): void {
  if (sale.delivery_email?.status === 'skipped') countEmail('skipped');
}

/**
 * Queues a sale's delivery e-mail again, for an attempt now and a fresh retry schedule; the sale says
 * `pending` until it is settled. A job already waiting is pulled forward rather than doubled; one a
 * worker is sending at this moment is left to finish (its result stands). The `actor`'s audit entry
 * commits with the queued job.
 */
/** The refusals of a resend, as the API words them (the dashboard words them its own way). */
export const RESEND_REFUSALS = {
  noRecipient: "This sale's customer has no e-mail address, so there is no delivery e-mail to send.",
  refunded: 'This sale is refunded; its delivery e-mail is not sent again.',
  chargedBack: 'This sale was charged back; its delivery e-mail is not sent again.',
  noSmtp:
    'Delivery e-mail is not configured on this service: set SMTP_URL and STOREFRONT_MAIL_FROM, then resend.',
} as const;

export async function resendDeliveryEmail(
  db: Kysely<Database>,
  sale: SalesTable,
  mail: Pick<Config, 'smtp'>,
  actor: Actor,
): Promise<SalesTable> {
  if (recipientOf(sale) === null) throw invalidRequest(RESEND_REFUSALS.noRecipient);
  if (sale.status === 'refunded') throw invalidRequest(RESEND_REFUSALS.refunded);
  if (sale.status === 'charged_back') throw invalidRequest(RESEND_REFUSALS.chargedBack);
  if (mail.smtp === null) throw invalidRequest(RESEND_REFUSALS.noSmtp);
  const now = nowIso();
  const job = jobFor(sale, now);
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('email_jobs')
      .values(job)
      .onConflict((oc) =>
        oc
          .column('sale_id')
          .doUpdateSet({ attempts: 0, next_attempt_at: now })
          .where('email_jobs.lease', 'is', null),
      )
      .execute();
    await trx
      .updateTable('sales')
      .set({ delivery_email_status: 'pending' })
      .where('id', '=', sale.id)
      .execute();
    await recordAudit(
      trx,
      sale.store_id,
      actor,
      'delivery_email_resent',
      `Venda ${sale.id} para ${recipientOf(sale)}`,
    );
    await wakeOnCommit(trx, EMAIL_WAKE);
  });
  return { ...sale, delivery_email_status: 'pending' };
}
