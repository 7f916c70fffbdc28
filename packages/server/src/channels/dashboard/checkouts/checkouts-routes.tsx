import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { CheckoutsTable } from '../../../domain/checkouts/checkout-object.js';
import { changeCheckout, settingsOf, unarchiveCheckout } from '../../../domain/checkouts/checkout-service.js';
import { archiveCheckout } from '../../../flows/archive-checkout.js';
import { createCheckout } from '../../../flows/create-checkout.js';
import {
  findCheckout,
  findDefaultCheckout,
  listCheckoutsQuery,
} from '../../../domain/checkouts/checkouts-repository.js';
import type { CheckoutSettings } from '../../../domain/checkouts/settings.js';
import { isUuid } from '../../../platform/values/ids.js';
import type { Database } from '../../../platform/db/schema.js';
import { ApiError } from '../../../platform/http/api-error.js';
import { registerHashedAsset } from '../../../platform/html/page-assets.js';
import { sendProductPage } from '../../purchase-page/product-page-html.js';
import { findStore } from '../../../domain/stores/stores.js';
import { roleAllows } from '../../../domain/accounts/roles.js';
import { auditRequest } from '../shell/audit-request.js';
import { storeWriteContext } from '../shell/store-write-context.js';
import { DASHBOARD_PREFIX, DashboardError } from '../shell/dashboard-plugin.js';
import { defineScreen, guard, member, sendPage } from '../shell/page.js';
import { listQuery, readListPage } from '../views/listing.js';
import { checkDraft, CheckoutForm, draftFromForm, draftOf, SETTING_KEYS } from './checkout-form.js';
import type { CheckoutFormBody, Draft, Problems } from './checkout-form.js';
import { CheckoutEditor, CheckoutList, PATH, PREVIEW, STATUS_LABELS } from './checkouts-view.js';
import type { ListStatus } from './checkouts-view.js';
import { noticeOf } from '../shell/notices.js';

/** What a redirect after a change says; the query names one of these, never free text. */
const NOTICES = {
  criado: 'Checkout criado.',
  salvo: 'Checkout salvo.',
  arquivado: 'Checkout arquivado: os produtos que o usavam passam a usar o checkout padrão.',
  desarquivado: 'Checkout desarquivado.',
} as const;

const NoticeParam = { aviso: Type.Optional(Type.String({ maxLength: 40 })) };
const ListQuery = Type.Object({ ...listQuery(STATUS_LABELS), ...NoticeParam });
const NoticeQuery = Type.Object(NoticeParam);
const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const CsrfBody = Type.Object({ _csrf: Type.Optional(Type.String()) });

/** The product a preview shows: a checkout is a look, not a product. */
const SAMPLE_PRODUCT = {
  nome: 'Produto de exemplo',
  descricao: 'A descrição do produto aparece aqui.',
  garantia: null,
  preco_cents: 9700,
  imagem: null,
  recorrencia: null,
  order_bump_title: null,
  order_bump_description: null,
};

/**
 * Checkouts: the list, "Novo checkout", and the editor of the name and every `settings_json` key,
 * through the same checkout service as the API (its schema checks the form, its events are
 * recorded), beside a preview frame drawn by the purchase page's own renderer. Viewers read; editors
 * and owners change. Every change is in the owners' audit log.
 */
export const checkoutsScreen = defineScreen('checkouts', async (app, services) => {
  const { db } = app;
  const anyone = { dashboard: { access: 'anyone' as const } };
  const previewScript = registerHashedAsset(
    app,
    DASHBOARD_PREFIX,
    'dist/browser/checkout-preview.js',
    'js',
    anyone,
  ).url;
  // The purchase page's stylesheet, for the preview, served under the dashboard like its own.
  const pageCss = registerHashedAsset(app, DASHBOARD_PREFIX, 'assets/page.css', 'css', anyone).url;

  async function checkoutOf(request: FastifyRequest, id: string, executor: Kysely<Database> = db) {
    const row = isUuid(id) ? await findCheckout(executor, member(request).storeId, id) : undefined;
    if (!row) throw new DashboardError(404, 'Checkout não encontrado.');
    return row;
  }

  async function showEditor(
    request: FastifyRequest,
    reply: FastifyReply,
    view: { checkout: CheckoutsTable | null; draft: Draft; problems?: Problems; notice?: string | null },
    status = 200,
  ) {
    const session = member(request);
    const shownId = view.checkout?.id ?? (await findDefaultCheckout(db, session.storeId)).id;
    return sendPage(request, reply, services, {
      title: view.checkout ? `Checkout: ${view.checkout.name}` : 'Novo checkout',
      nav: 'checkouts',
      status,
      script: previewScript,
      framesPreview: true,
      body: (
        <CheckoutEditor
          checkout={view.checkout}
          shownId={shownId}
          draft={view.draft}
          problems={view.problems ?? {}}
          notice={view.notice ?? null}
          canEdit={roleAllows(session.role, 'editor')}
        />
      ),
    });
  }

  app.get('/checkouts', guard('viewer', { querystring: ListQuery }), async (request, reply) => {
    const session = member(request);
    const status = (request.query.status || undefined) as ListStatus | undefined;
    const query = listCheckoutsQuery(db, session.storeId).$if(status !== undefined, (q) =>
      q.where('archived', '=', status === 'arquivados' ? 1 : 0),
    );
    const { rows, next } = await readListPage(query, 'checkouts', request.query.antes);
    return sendPage(request, reply, services, {
      title: 'Checkouts',
      nav: 'checkouts',
      body: (
        <CheckoutList
          rows={rows}
          status={status}
          next={next}
          canEdit={roleAllows(session.role, 'editor')}
          notice={noticeOf(NOTICES, request.query.aviso)}
        />
      ),
    });
  });

  app.get('/checkouts/novo', guard('editor'), async (request, reply) => {
    const base = await findDefaultCheckout(db, member(request).storeId);
    return showEditor(request, reply, { checkout: null, draft: draftOf('', settingsOf(base)) });
  });

  app.post('/checkouts', guard('editor', { body: CheckoutForm }), async (request, reply) => {
    const draft = draftFromForm(request.body as CheckoutFormBody);
    const base = await findDefaultCheckout(db, member(request).storeId);
    const { problems, name, settings } = checkDraft(draft, settingsOf(base));
    if (Object.keys(problems).length > 0)
      return showEditor(request, reply, { checkout: null, draft, problems }, 400);
    const ctx = await storeWriteContext(db, request);
    const created = await db.transaction().execute(async (trx) => {
      const object = await createCheckout(trx, ctx, { name, settings_json: settings });
      await auditRequest(trx, request, 'checkout_created', name);
      return object;
    });
    return reply.redirect(`${PATH}/${created.id}?aviso=criado`, 303);
  });

  app.get(
    '/checkouts/:id',
    guard('viewer', { params: IdParams, querystring: NoticeQuery }),
    async (request, reply) => {
      const checkout = await checkoutOf(request, request.params.id);
      return showEditor(request, reply, {
        checkout,
        draft: draftOf(checkout.name, settingsOf(checkout)),
        notice: noticeOf(NOTICES, request.query.aviso),
      });
    },
  );

  app.post(
    '/checkouts/:id',
    guard('editor', { params: IdParams, body: CheckoutForm }),
    async (request, reply) => {
      const checkout = await checkoutOf(request, request.params.id);
      const draft = draftFromForm(request.body as CheckoutFormBody);
      const { problems, name, settings } = checkDraft(draft, settingsOf(checkout));
      if (Object.keys(problems).length > 0)
        return showEditor(request, reply, { checkout, draft, problems }, 400);
      const ctx = await storeWriteContext(db, request);
      await db.transaction().execute(async (trx) => {
        const row = await checkoutOf(request, checkout.id, trx);
        const before = settingsOf(row);
        await changeCheckout(trx, ctx, row, { name, settings_json: settings });
        const changed = SETTING_KEYS.filter((key) => before[key] !== settings[key]);
        if (row.name !== name || changed.length > 0) {
          const names = row.name === name ? name : `${row.name} → ${name}`;
          await auditRequest(trx, request, 'checkout_updated', [names, ...changed].join('; '));
        }
      });
      return reply.redirect(`${PATH}/${checkout.id}?aviso=salvo`, 303);
    },
  );

  const archiving = [
    { path: 'arquivar', change: archiveCheckout, action: 'checkout_archived', notice: 'arquivado' },
    { path: 'desarquivar', change: unarchiveCheckout, action: 'checkout_unarchived', notice: 'desarquivado' },
  ] as const;
  for (const step of archiving) {
    app.post(
      `/checkouts/:id/${step.path}`,
      guard('editor', { params: IdParams, body: CsrfBody }),
      async (request, reply) => {
        const ctx = await storeWriteContext(db, request);
        await db.transaction().execute(async (trx) => {
          const row = await checkoutOf(request, request.params.id, trx);
          const wasArchived = row.archived === 1;
          try {
            await step.change(trx, ctx, row);
          } catch (error) {
            // The service's one refusal here: the default checkout stays.
            if (error instanceof ApiError && error.statusCode === 400)
              throw new DashboardError(400, 'O checkout padrão não pode ser arquivado.');
            throw error;
          }
          if (wasArchived !== (step.path === 'arquivar'))
            await auditRequest(trx, request, step.action, row.name);
        });
        return reply.redirect(`${PATH}/${request.params.id}?aviso=${step.notice}`, 303);
      },
    );
  }

  /** The purchase page with these settings and a sample product: no order URL, no page view. */
  async function sendPreview(request: FastifyRequest, reply: FastifyReply, settings: CheckoutSettings) {
    const store = (await findStore(db, member(request).storeId))!;
    return sendProductPage(
      reply,
      { store, settings, product: SAMPLE_PRODUCT, bump: null },
      { css: pageCss },
      null,
    );
  }

  app.get(`/checkouts/:id/${PREVIEW}`, guard('viewer', { params: IdParams }), async (request, reply) =>
    sendPreview(request, reply, settingsOf(await checkoutOf(request, request.params.id))),
  );

  /** Unsaved settings drawn over `base`: a wrong field shows as saved until it is right. */
  const previewDraft = (request: FastifyRequest, reply: FastifyReply, base: CheckoutsTable) =>
    sendPreview(
      request,
      reply,
      checkDraft(draftFromForm(request.body as CheckoutFormBody), settingsOf(base)).settings,
    );

  app.post(`/checkouts/${PREVIEW}`, guard('editor', { body: CheckoutForm }), async (request, reply) =>
    previewDraft(request, reply, await findDefaultCheckout(db, member(request).storeId)),
  );

  app.post(
    `/checkouts/:id/${PREVIEW}`,
    guard('editor', { params: IdParams, body: CheckoutForm }),
    async (request, reply) => previewDraft(request, reply, await checkoutOf(request, request.params.id)),
  );
});
