import { Type } from '@sinclair/typebox';
import { normalizePixSettings } from '../../../domain/pix/pix-settings.js';
import { isCheckoutMode } from '../../../domain/stores/checkout-mode.js';
import { checkoutModeProblem } from '../../../flows/check-checkout-mode.js';
import { findStore, updateStore } from '../../../domain/stores/stores.js';
import { auditRequest } from '../shell/audit-request.js';
import { guard, member } from '../shell/page.js';
import { Csrf } from './settings-answers.js';
import type { SectionRoutes } from './settings-answers.js';

const PixBody = Type.Object({ pix_key: Type.String({ maxLength: 1000 }), ...Csrf });
const ModeBody = Type.Object({ mode: Type.String({ maxLength: 20 }), ...Csrf });

const MODE_LABELS = { test: 'Teste', live: 'Produção' };

/** Pagamentos (owners): the store's Pix key and its checkout mode, through the CLI's store services. */
export const paymentsRoutes: SectionRoutes = (app, _services, { refuse, done }) => {
  const { db } = app;

  app.post('/configuracoes/pix', guard('owner', { body: PixBody }), async (request, reply) => {
    const { storeId } = member(request);
    let pixKey: string;
    try {
      pixKey = normalizePixSettings({ pixKey: request.body.pix_key }).pixKey!;
    } catch {
      return refuse(
        request,
        reply,
        'pixKey',
        'Chave Pix inválida. Use CPF ou CNPJ (só números), e-mail, telefone como +55… ou uma chave aleatória.',
        { pix_key: request.body.pix_key },
      );
    }
    const before = (await findStore(db, storeId))!;
    await db.transaction().execute(async (trx) => {
      await updateStore(trx, storeId, { pixKey });
      if (before.pix_key !== pixKey)
        await auditRequest(trx, request, 'pix_key_changed', `${before.pix_key ?? '—'} → ${pixKey}`);
    });
    return done(reply, 'pix', 'pagamentos');
  });

  app.post('/configuracoes/modo', guard('owner', { body: ModeBody }), async (request, reply) => {
    const { storeId } = member(request);
    const { mode } = request.body;
    if (!isCheckoutMode(mode)) return refuse(request, reply, 'mode', 'Escolha Teste ou Produção.');
    if ((await checkoutModeProblem(db, storeId, mode)) !== null) {
      return refuse(
        request,
        reply,
        'mode',
        'Para cobrar em produção, a loja precisa antes das configurações do PSP e de uma chave Pix. Até lá, fique em Teste.',
      );
    }
    const before = (await findStore(db, storeId))!;
    await db.transaction().execute(async (trx) => {
      await updateStore(trx, storeId, { checkoutMode: mode });
      if (before.checkout_mode !== mode) {
        await auditRequest(
          trx,
          request,
          'checkout_mode_changed',
          `${MODE_LABELS[before.checkout_mode]} → ${MODE_LABELS[mode]}`,
        );
      }
    });
    return done(reply, 'modo', 'pagamentos');
  });
};
