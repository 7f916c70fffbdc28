import { Type } from '@sinclair/typebox';
import { handleFault, HANDLE_MAX_LENGTH, HANDLE_MIN_LENGTH } from '../../../platform/values/handle.js';
import { findStore, HandleTakenError, updateStore } from '../../../domain/stores/stores.js';
import { auditRequest } from '../shell/audit-request.js';
import { guard, member } from '../shell/page.js';
import { Csrf } from './settings-answers.js';
import type { SectionRoutes } from './settings-answers.js';

const StoreBody = Type.Object({
  name: Type.String({ maxLength: 1000 }),
  handle: Type.String({ maxLength: 1000 }),
  ...Csrf,
});

const STORE_NAME_MAX = 100;
const HANDLE_FAULTS = {
  length: `O identificador precisa ter de ${HANDLE_MIN_LENGTH} a ${HANDLE_MAX_LENGTH} caracteres.`,
  characters: 'Use só letras minúsculas, números e hífens, começando e terminando com letra ou número.',
};

/** Loja (owners): the store's name and handle, through the same store service as the CLI. */
export const storeRoutes: SectionRoutes = (app, _services, { refuse, done }) => {
  const { db } = app;

  app.post('/configuracoes/loja', guard('owner', { body: StoreBody }), async (request, reply) => {
    const { storeId } = member(request);
    const name = request.body.name.trim();
    const handle = request.body.handle.trim();
    const values = { name, handle };
    if (name === '' || name.length > STORE_NAME_MAX) {
      return refuse(
        request,
        reply,
        'store',
        `O nome precisa ter de 1 a ${STORE_NAME_MAX} caracteres.`,
        values,
      );
    }
    const fault = handleFault(handle);
    if (fault) return refuse(request, reply, 'store', HANDLE_FAULTS[fault], values);
    const before = (await findStore(db, storeId))!;
    const changes = [
      before.name === name ? null : `nome: ${before.name} → ${name}`,
      before.handle === handle ? null : `identificador: ${before.handle} → ${handle}`,
    ].filter(Boolean);
    try {
      await db.transaction().execute(async (trx) => {
        await updateStore(trx, storeId, { name, handle });
        if (changes.length > 0) await auditRequest(trx, request, 'store_updated', changes.join('; '));
      });
    } catch (error) {
      if (!(error instanceof HandleTakenError)) throw error;
      return refuse(request, reply, 'store', 'Este identificador já é usado por outra loja.', values, 409);
    }
    return done(reply, 'loja', 'loja');
  });
};
