import { Type } from '@sinclair/typebox';
import { updateStoreSettings } from '../../../domain/stores/store-settings.js';
import { findStore } from '../../../domain/stores/stores.js';
import { auditRequest } from '../shell/audit-request.js';
import { guard, member } from '../shell/page.js';
import { metaFormChanges, metaRemoval } from './meta-settings.js';
import { Csrf } from './settings-answers.js';
import type { SectionRoutes } from './settings-answers.js';

const MetaBody = Type.Object({
  pixel_id: Type.String({ maxLength: 1000 }),
  access_token: Type.String({ maxLength: 2000 }),
  test_event_code: Type.String({ maxLength: 1000 }),
  browser_pixel: Type.Optional(Type.String({ maxLength: 10 })),
  ...Csrf,
});

/**
 * Conversões Meta (owners): PATCH /store's rules and service; the token is never shown back, even on
 * an error.
 */
export const metaRoutes: SectionRoutes = (app, { secretBox }, { refuse, done }) => {
  const { db } = app;

  app.post('/configuracoes/meta', guard('owner', { body: MetaBody }), async (request, reply) => {
    const store = (await findStore(db, member(request).storeId))!;
    const { _csrf: _token, access_token: _secret, ...values } = request.body;
    const changes = metaFormChanges(store, request.body, secretBox);
    if ('error' in changes) return refuse(request, reply, 'meta', changes.error, values);
    const detail = [
      `pixel ${changes.set.meta_pixel_id}`,
      changes.set.meta_access_token_sealed ? 'token novo' : null,
      changes.set.meta_browser_pixel ? 'pixel no navegador' : null,
    ].filter(Boolean);
    await db.transaction().execute(async (trx) => {
      await updateStoreSettings(trx, store, changes.set);
      await auditRequest(trx, request, 'meta_conversions_changed', detail.join('; '));
    });
    return done(reply, 'meta', 'meta');
  });

  app.post('/configuracoes/meta/remover', guard('owner'), async (request, reply) => {
    const store = (await findStore(db, member(request).storeId))!;
    await db.transaction().execute(async (trx) => {
      await updateStoreSettings(trx, store, metaRemoval(store, secretBox));
      await auditRequest(trx, request, 'meta_conversions_changed', 'removidas');
    });
    return done(reply, 'meta-removido', 'meta');
  });
};
