import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { invalidRequest } from '../http/api-error.js';
import { errorResponses } from '../http/schemas.js';
import { createSecretBox } from '../common/secret-box.js';
import type { SecretBox } from '../common/secret-box.js';
import { Store, UpdateStoreBody, toStore } from './store-object.js';
import { findStore } from './stores.js';
import type { StoresTable } from './stores.js';

/** IANA names this Node.js knows (its ICU data), plus `UTC`. */
const TIME_ZONES = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);

/** The Meta access token is sealed to its store: a copied ciphertext opens on no other row. */
export const metaTokenAssociatedData = (storeId: string) => `store:${storeId}:meta-access-token`;

/**
 * The columns a PATCH changes; unknown time zones and a first Meta setting without its pixel and token
 * are 400s naming the field. Only the fields sent change.
 */
function changesOf(store: StoresTable, body: UpdateStoreBody, box: SecretBox): Partial<StoresTable> {
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
  return set;
}

/**
 * The key's store as a resource (API 1.2.0): its name and the settings a store runs itself with (time
 * zone, the abandoned-order e-mail, Meta conversions). The Pix key, checkout mode and PSP settings
 * stay with the CLI. Both modes' keys see and change the same store.
 */
export async function storeRoutes(parent: FastifyInstance): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app;
  const box = createSecretBox(app.config.secret);
  const tags = ['Store'];

  async function storeOf(storeId: string): Promise<StoresTable> {
    const store = await findStore(db, storeId);
    if (!store) throw new Error(`store ${storeId} of an authenticated key is missing`);
    return store;
  }

  app.get(
    '/store',
    {
      config: { scope: 'store:read' },
      schema: {
        tags,
        operationId: 'getStore',
        summary: 'Retrieve the key’s store and its settings (API 1.2.0)',
        response: { 200: Store, ...errorResponses() },
      },
    },
    async (request) => toStore(await storeOf(request.auth.storeId)),
  );

  app.patch(
    '/store',
    {
      config: { scope: 'store:write' },
      schema: {
        tags,
        operationId: 'updateStore',
        summary: 'Update the store’s name and settings; only the fields sent change (API 1.2.0)',
        body: UpdateStoreBody,
        response: { 200: Store, ...errorResponses(400) },
      },
    },
    async (request) => {
      const store = await storeOf(request.auth.storeId);
      const set = changesOf(store, request.body, box);
      if (Object.keys(set).length === 0) return toStore(store);
      await db.updateTable('stores').set(set).where('id', '=', store.id).execute();
      return toStore({ ...store, ...set });
    },
  );
}
