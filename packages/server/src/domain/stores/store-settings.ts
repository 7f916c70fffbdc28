import type { Kysely } from 'kysely';
import type { SecretBox } from '../../platform/values/secret-box.js';
import type { Database } from '../../platform/db/schema.js';
import { invalidRequest } from '../../platform/http/api-error.js';
import { installmentChanges } from './installment-settings.js';
import type { UpdateStoreBody } from './store-object.js';
import type { StoresTable } from './stores.js';
import { zoneChanged } from '../kernel/store-timezone.js';

/** IANA names this Node.js knows (its ICU data), plus `UTC`. */
const TIME_ZONES = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);

/** The Meta access token is sealed to its store: a copied ciphertext opens on no other row. */
export const metaTokenAssociatedData = (storeId: string) => `store:${storeId}:meta-access-token`;

/**
 * The columns a PATCH changes; unknown time zones, a first Meta setting without its pixel and token,
 * and interest-free installments past the maximum are 400s naming the field. Only the fields sent change.
 */
export function storeSettingsChanges(
  store: StoresTable,
  body: UpdateStoreBody,
  box: SecretBox,
): Partial<StoresTable> {
  const set: Partial<StoresTable> = {};
  if (body.name !== undefined) set.name = body.name;
  if (body.timezone !== undefined) {
    if (!TIME_ZONES.has(body.timezone))
      throw invalidRequest(
        `Invalid parameter timezone: unknown time zone '${body.timezone.slice(0, 64)}'; use an IANA name such as America/Sao_Paulo.`,
        'timezone',
      );
    set.timezone = body.timezone;
  }
  const recovery = body.recovery_email;
  if (recovery) {
    if (recovery.enabled !== undefined) set.recovery_email_enabled = recovery.enabled ? 1 : 0;
    if (recovery.delay_minutes !== undefined) set.recovery_email_delay_minutes = recovery.delay_minutes;
    if (recovery.subject !== undefined) set.recovery_email_subject = recovery.subject;
    if (recovery.body !== undefined) set.recovery_email_body = recovery.body;
  }
  const meta = body.conversions?.meta;
  if (meta === null) {
    Object.assign(set, {
      meta_pixel_id: null,
      meta_access_token_sealed: null,
      meta_test_event_code: null,
      meta_browser_pixel: 0,
    });
  } else if (meta !== undefined) {
    const first = store.meta_pixel_id === null;
    for (const field of ['pixel_id', 'access_token'] as const) {
      if (first && meta[field] === undefined)
        throw invalidRequest(
          `Invalid parameter conversions.meta.${field}: required when Meta conversions are first set.`,
          `conversions.meta.${field}`,
        );
    }
    if (meta.pixel_id !== undefined) set.meta_pixel_id = meta.pixel_id;
    if (meta.access_token !== undefined)
      set.meta_access_token_sealed = box.seal(meta.access_token, metaTokenAssociatedData(store.id));
    if (meta.test_event_code !== undefined) set.meta_test_event_code = meta.test_event_code;
    if (meta.browser_pixel !== undefined) set.meta_browser_pixel = meta.browser_pixel ? 1 : 0;
  }
  if (body.card) Object.assign(set, installmentChanges(store, body.card));
  return set;
}

/**
 * Writes a store's changed settings and answers the store as it is now; the API's PATCH /store and
 * the dashboard's settings forms both change a store through here.
 */
export async function updateStoreSettings(
  db: Kysely<Database>,
  store: StoresTable,
  set: Partial<StoresTable>,
): Promise<StoresTable> {
  if (Object.keys(set).length === 0) return store;
  await db.updateTable('stores').set(set).where('id', '=', store.id).execute();
  if (set.timezone !== undefined) await zoneChanged(db, store.id);
  return { ...store, ...set };
}
