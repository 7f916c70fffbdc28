import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../../platform/http/schemas.js';
import { createSecretBox } from '../../platform/values/secret-box.js';
import { Store, UpdateStoreBody, toStore } from '../../domain/stores/store-object.js';
import { storeSettingsChanges, updateStoreSettings } from '../../domain/stores/store-settings.js';
import { findStore } from '../../domain/stores/stores.js';
import { describeInstallmentPolicy, installmentPolicyOf } from '../../domain/stores/installment-settings.js';
import type { StoresTable } from '../../domain/stores/stores.js';
import { recordAudit } from '../../domain/accounts/audit.js';
import { keyActor } from './key-actor.js';

/** What a PATCH changed, as the owners' audit log words it (settings by name, never a token). */
function describeChanges(store: StoresTable, set: Partial<StoresTable>): string[] {
  const changed = (Object.keys(set) as (keyof StoresTable)[]).filter((key) => set[key] !== store[key]);
  const has = (prefix: string) => changed.some((key) => key.startsWith(prefix));
  return [
    changed.includes('name') ? `nome: ${store.name} → ${set.name}` : null,
    changed.includes('timezone') ? `fuso horário: ${store.timezone} → ${set.timezone}` : null,
    has('recovery_email_') ? 'e-mail de pedido abandonado' : null,
    has('meta_') ? 'conversões Meta' : null,
    has('card_')
      ? `parcelamento: ${describeInstallmentPolicy(installmentPolicyOf(store))} → ${describeInstallmentPolicy(installmentPolicyOf({ ...store, ...set }))}`
      : null,
  ].filter((change): change is string => change !== null);
}

/**
 * The key's store as a resource (API 1.2.0): its name and the settings a store runs itself with (time
 * zone, the abandoned-order e-mail, Meta conversions, card installment terms since 1.3.0). The Pix key, checkout mode and PSP settings
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
      const set = storeSettingsChanges(store, request.body, box);
      const changes = describeChanges(store, set);
      const updated = await db.transaction().execute(async (trx) => {
        const after = await updateStoreSettings(trx, store, set);
        if (changes.length > 0)
          await recordAudit(trx, store.id, keyActor(request), 'store_updated', changes.join('; '));
        return after;
      });
      return toStore(updated);
    },
  );
}
