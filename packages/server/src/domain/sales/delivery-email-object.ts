import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Nullable, Timestamp } from '../../platform/http/schemas.js';

import type { DeliveryEmailStatus } from '../kernel/email-status.js';

/**
 * The delivery e-mail's columns on `sales` (migration 0009). Optional in the row type so code that
 * builds a sale row before inserting it needs no e-mail fields: the database defaults them (no
 * e-mail), and `deliveryEmailOf` decides them before the sale is inserted.
 */
export interface SaleDeliveryEmailColumns {
  delivery_email_status?: DeliveryEmailStatus | null;
  delivery_email_attempts?: number;
  delivery_email_sent_at?: string | null;
  delivery_email_last_error?: string | null;
}

export const DeliveryEmail = Type.Object(
  {
    status: Type.Union(
      [Type.Literal('pending'), Type.Literal('sent'), Type.Literal('failed'), Type.Literal('skipped')],
      {
        description:
          '`pending`: queued or waiting for a retry; `sent`: the mail server accepted it; `failed`: refused permanently or out of retries; `skipped`: the service has no SMTP_URL.',
      },
    ),
    attempts: Type.Integer({ minimum: 0, description: 'Sending attempts made so far, resends included.' }),
    sent_at: Nullable({ ...Timestamp, description: 'When a mail server last accepted it.' }),
    last_error: Nullable(
      Type.String({
        description: 'Why the last attempt did not go out, in plain words; null once sent.',
        example: 'The mail server refused the message permanently: 550 5.1.1 Mailbox unavailable.',
      }),
    ),
  },
  {
    title: 'Delivery e-mail',
    example: { status: 'sent', attempts: 1, sent_at: '2026-11-22T10:00:02.000Z', last_error: null },
    description:
      'The e-mail sent to the customer when the sale is approved (product, access link); null when the customer has no e-mail.',
  },
);

export type DeliveryEmail = Static<typeof DeliveryEmail>;

export function toDeliveryEmail(row: SaleDeliveryEmailColumns): DeliveryEmail | null {
  if (!row.delivery_email_status) return null;
  return {
    status: row.delivery_email_status,
    attempts: row.delivery_email_attempts ?? 0,
    sent_at: row.delivery_email_sent_at ?? null,
    last_error: row.delivery_email_last_error ?? null,
  };
}
