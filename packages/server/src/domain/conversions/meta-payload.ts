import { createHash } from 'node:crypto';
import type { Customer } from '../kernel/customer.js';
import type { Tracking } from '../kernel/tracking.js';
import type { ConversionKind } from './conversion-event.js';

/**
 * One event as Meta's Conversions API takes it. Personal data leaves only as SHA-256 of Meta's
 * normalised form (lower-case e-mail, phone digits with the country code, document digits); the
 * buyer's IP and user agent go as they are, as Meta requires.
 */
export interface MetaEvent {
  event_name: ConversionKind;
  event_time: number;
  event_id: string;
  action_source: 'website' | 'other';
  event_source_url?: string;
  user_data: Record<string, string | string[]>;
  custom_data: {
    currency: 'BRL';
    value: number;
    content_ids: string[];
    content_type: 'product';
    order_id: string;
  };
}

/** What an event is made of, read when it is sent (the sale's and order's rows, the store's page). */
export interface EventSource {
  kind: ConversionKind;
  eventId: string;
  /** When its cause happened (the row's `created_at`). */
  occurredAt: string;
  amountCents: number;
  productIds: string[];
  customer: Customer | null;
  /** The page order behind it, when there is one: the buyer as the page saw them. */
  order: {
    id: string;
    createdAt: string;
    clientIp: string | null;
    userAgent: string | null;
    tracking: Tracking;
  } | null;
  /** The product's purchase page (absolute), when known. */
  pageUrl: string | null;
}

export const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/** Digits with the country code: a Brazilian number given without it (DDD + 8 or 9 digits) gets 55. */
export function normalisePhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  return !phone.trim().startsWith('+') && (digits.length === 10 || digits.length === 11)
    ? `55${digits}`
    : digits;
}

/** Lower case, letters only (accents kept, as UTF-8), as Meta asks of names. */
const normaliseName = (name: string) =>
  name
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}]/gu, '');

function nameParts(name: string | undefined): { fn?: string; ln?: string } {
  const words = (name ?? '').trim().split(/\s+/).map(normaliseName).filter(Boolean);
  if (words.length === 0) return {};
  return words.length === 1 ? { fn: words[0]! } : { fn: words[0]!, ln: words[words.length - 1]! };
}

/** `fb.1.<ms>.<fbclid>`: Meta's click id, stamped with when the click's page order was placed. */
export const fbcOf = (fbclid: string, at: string) => `fb.1.${Date.parse(at)}.${fbclid}`;

export function userDataOf(source: EventSource): MetaEvent['user_data'] {
  const data: MetaEvent['user_data'] = {};
  const customer = source.customer ?? {};
  if (customer.email) data.em = [sha256(normaliseEmail(customer.email))];
  if (customer.whatsapp) data.ph = [sha256(normalisePhone(customer.whatsapp))];
  const { fn, ln } = nameParts(customer.name);
  if (fn) data.fn = [sha256(fn)];
  if (ln) data.ln = [sha256(ln)];
  if (customer.document) data.external_id = [sha256(customer.document.replace(/\D/g, ''))];
  const order = source.order;
  if (order?.clientIp) data.client_ip_address = order.clientIp;
  if (order?.userAgent) data.client_user_agent = order.userAgent;
  if (order?.tracking.fbclid) data.fbc = fbcOf(order.tracking.fbclid, order.createdAt);
  return data;
}

/**
 * The event of a page order or a sale. A sale without a page order (a charge made through the API, a
 * subscription's renewal) had no buyer's browser: Meta takes it as `other`, not `website`.
 */
export function metaEventOf(source: EventSource): MetaEvent {
  const website = source.order !== null;
  return {
    event_name: source.kind,
    event_time: Math.floor(Date.parse(source.occurredAt) / 1000),
    event_id: source.eventId,
    action_source: website ? 'website' : 'other',
    ...(website && source.pageUrl !== null && { event_source_url: source.pageUrl }),
    user_data: userDataOf(source),
    custom_data: {
      currency: 'BRL',
      value: source.amountCents / 100,
      content_ids: source.productIds,
      content_type: 'product',
      order_id: source.order?.id ?? source.eventId,
    },
  };
}

/** The request body: the token in the body (never in a URL a log might keep). */
export function metaRequestBody(event: MetaEvent, accessToken: string, testEventCode: string | null): string {
  return JSON.stringify({
    data: [event],
    ...(testEventCode !== null && { test_event_code: testEventCode }),
    access_token: accessToken,
  });
}
