import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CardNotification, CardNotificationRef } from '../card-provider.js';

/**
 * Reads a Mercado Pago webhook: `POST <notification_url>?data.id=<payment id>&type=payment` with a
 * body `{action, type: "payment", data: {id}}`. Other topics (merchant orders, chargebacks' own
 * topic…) name no payment here: null.
 *
 * With the application's secret signature set, `x-signature: ts=<unix seconds>,v1=<hex>` must be the
 * HMAC-SHA256, keyed with that secret, of the manifest `id:<data.id>;request-id:<x-request-id>;ts:<ts>;`
 * (the id as the query carries it, or the body's when the query has none, so the id acted on is
 * always the one signed; lower-cased when alphanumeric; a part whose value did not come is left out,
 * as Mercado Pago's documentation says). The timestamp is not held to a window: a replayed
 * notification can only make us read the payment back from Mercado Pago, which is harmless.
 */
export function readMercadoPagoNotification(
  notification: CardNotification,
  webhookSecret: string | null,
): CardNotificationRef | 'forged' | null {
  const body = parseBody(notification.body);
  const type = notification.query.type ?? notification.query.topic ?? body?.type;
  if (type !== 'payment') return null;
  // The query's id is the one the signature covers, so it wins over the body's.
  const bodyId = body?.data?.id;
  const id =
    notification.query['data.id'] ??
    (typeof bodyId === 'string' || typeof bodyId === 'number' ? String(bodyId) : undefined);
  if (webhookSecret !== null && !verified(notification, id, webhookSecret)) return 'forged';
  if (id === undefined || id === '') return null;
  return { pspId: id };
}

function verified(notification: CardNotification, id: string | undefined, secret: string): boolean {
  const header = notification.headers['x-signature'];
  if (header === undefined) return false;
  const parts = new Map<string, string>();
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at > 0) parts.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  const ts = parts.get('ts');
  const v1 = parts.get('v1');
  if (!ts || !v1 || !/^[0-9a-f]{64}$/i.test(v1)) return false;
  const expected = signatureOf(secret, { dataId: id, requestId: notification.headers['x-request-id'], ts });
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(v1.toLowerCase(), 'hex'));
}

/** The `v1` Mercado Pago sends for a notification: hex HMAC-SHA256 of the manifest. */
function signatureOf(
  secret: string,
  parts: { dataId: string | undefined; requestId: string | undefined; ts: string },
): string {
  const id =
    parts.dataId !== undefined && /^[a-z0-9]+$/i.test(parts.dataId)
      ? parts.dataId.toLowerCase()
      : parts.dataId;
  const manifest =
    (id ? `id:${id};` : '') + (parts.requestId ? `request-id:${parts.requestId};` : '') + `ts:${parts.ts};`;
  return createHmac('sha256', secret).update(manifest).digest('hex');
}

function parseBody(text: string): { type?: unknown; data?: { id?: unknown } } | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object'
      ? (parsed as { type?: unknown; data?: { id?: unknown } })
      : undefined;
  } catch {
    return undefined;
  }
}
