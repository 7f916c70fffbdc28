/** Where a delivery e-mail stands: the e-mail job's state, shown on its sale as `delivery_email.status`. */
export type DeliveryEmailStatus = 'pending' | 'sent' | 'failed' | 'skipped';
