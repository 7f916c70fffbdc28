import { Type } from '@sinclair/typebox';
import { STORABLE_TEXT_PATTERN } from '../../platform/http/text-patterns.js';

/** The campaign parameters kept from a purchase page's URL: UTMs, the platforms' `src`/`sck`, click ids. */
export const TRACKING_KEYS = [
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'src',
  'sck',
  'fbclid',
  'gclid',
] as const;

export type TrackingKey = (typeof TRACKING_KEYS)[number];
export type Tracking = Partial<Record<TrackingKey, string>>;

export const MAX_TRACKING_VALUE_LENGTH = 200;

/**
 * Where a sale came from. Through the API a value over 200 characters, an empty one or an unknown key
 * is a 400 naming it (`tracking.utm_source`): the caller can fix its request. The purchase page never
 * refuses a buyer over an ad's URL: it keeps these keys only, cut to 200 characters (`cleanTracking`).
 */
export const TrackingSchema = Type.Partial(
  Type.Record(
    Type.Union(TRACKING_KEYS.map((key) => Type.Literal(key))),
    Type.String({ minLength: 1, maxLength: MAX_TRACKING_VALUE_LENGTH, pattern: STORABLE_TEXT_PATTERN }),
    {
      additionalProperties: false,
      title: 'Tracking',
      description:
        'Campaign attribution (API 1.2.0): the `utm_source`, `utm_medium`, `utm_campaign`, `utm_term`, `utm_content`, `src`, `sck`, `fbclid` and `gclid` the purchase page found in its URL, each 1-200 characters; only the keys that were present (`{}` when none).',
      example: { utm_source: 'facebook', utm_campaign: 'black-friday', fbclid: 'IwAR0abc' },
    },
  ),
);

/**
 * The page's parameters as the server keeps them, whatever the browser sent: known keys with
 * non-empty text, each cut to 200 characters (whole code points, so no half of a pair is left).
 */
export function cleanTracking(raw: Record<string, unknown> | undefined): Tracking {
  const tracking: Tracking = {};
  if (raw === undefined) return tracking;
  for (const key of TRACKING_KEYS) {
    const value = raw[key];
    if (typeof value !== 'string' || value === '') continue;
    tracking[key] = Array.from(value).slice(0, MAX_TRACKING_VALUE_LENGTH).join('');
  }
  return tracking;
}

export const parseTracking = (stored: string | undefined): Tracking =>
  stored === undefined ? {} : (JSON.parse(stored) as Tracking);
