import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { isUuid } from '../../../platform/values/ids.js';
import { listCheckoutsQuery } from '../../../domain/checkouts/checkouts-repository.js';
import { toProduct } from '../../../domain/catalogue/product-object.js';
import type { Product, ProductsTable } from '../../../domain/catalogue/product-object.js';
import { archiveProduct, createProduct, editProduct } from '../../../domain/catalogue/product-service.js';
import { findProduct, listProductsQuery } from '../../../domain/catalogue/products-repository.js';
import { findStore } from '../../../domain/stores/stores.js';
import { auditRequest } from '../shell/audit-request.js';
import { storeWriteContext } from '../shell/store-write-context.js';
import type { AuditAction } from '../../../domain/accounts/audit.js';
import { roleAllows } from '../../../domain/accounts/roles.js';
import { DashboardError } from '../shell/dashboard-plugin.js';
import { changedFields, refusedForm } from '../shell/form-values.js';
import { defineScreen, guard, member, sendPage } from '../shell/page.js';
import { listQuery, readListPage } from '../views/listing.js';
import {
  changeBody,
  creationBody,
  PRODUCT_FIELD_ERRORS,
  ProductForm,
  productValues,
} from './product-form.js';
import type { ProductValues } from './product-form.js';
import { LIST_FILTERS, PATH, ProductFormView, ProductPage, ProductsList } from './products-view.js';
import type { ProductFormState } from './products-view.js';
import { noticeOf } from '../shell/notices.js';

const NOTICES = {
  criado: 'Produto criado.',
  salvo: 'Produto salvo.',
  arquivado: 'Produto arquivado: a página de compra sai do ar.',
  reativado: 'Produto reativado: a página de compra volta ao ar.',
} as const;

const ListQuery = Type.Object({
  ...listQuery(LIST_FILTERS),
  aviso: Type.Optional(Type.String({ maxLength: 40 })),
});
const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const NoticeQuery = Type.Object({ aviso: Type.Optional(Type.String({ maxLength: 40 })) });
const CsrfBody = Type.Object({ _csrf: Type.Optional(Type.String()) });

const EMPTY_FORM: ProductFormState = { values: {}, errors: {} };

/**
 * Produtos: the store's products (active, or archived), 50 a page, newest first; editors and owners
 * create, change, archive and reactivate them through the API's product service (same rules, same
 * `product.*` events), recorded in the owners' audit log. Viewers read.
 */
export const productsScreen = defineScreen('products', async (app, services) => {
  const { db, config } = app;

  /** The product's audit entry, written by the product service in the change's transaction. */
  const record =
    (request: FastifyRequest, action: AuditAction, detail = (_: Product) => '') =>
    (trx: Kysely<Database>, product: Product) =>
      auditRequest(trx, request, action, `${product.nome} (${product.codigo})${detail(product)}`);

  async function productOr404(request: FastifyRequest, id: string): Promise<ProductsTable> {
    const row = isUuid(id) ? await findProduct(db, member(request).storeId, id) : undefined;
    if (!row) throw new DashboardError(404, 'Este produto não existe nesta loja.');
    return row;
  }

  /** The store's checkouts a product may use (not archived), oldest first. */
  const usableCheckouts = (storeId: string) =>
    listCheckoutsQuery(db, storeId).where('archived', '=', 0).orderBy('created_at').execute();

  const refusal = (error: unknown, values: ProductValues) =>
    refusedForm(error, values, PRODUCT_FIELD_ERRORS, 'nome');

  async function showForm(
    request: FastifyRequest,
    reply: FastifyReply,
    state: ProductFormState,
    status = 200,
  ) {
    const checkouts = await usableCheckouts(member(request).storeId);
    return sendPage(request, reply, services, {
      title: 'Novo produto',
      nav: 'products',
      status,
      body: (
        <>
          <p>
            <a href={PATH}>Voltar para Produtos</a>
          </p>
          <ProductFormView action={PATH} state={state} checkouts={checkouts} />
        </>
      ),
    });
  }

  async function showProduct(
    request: FastifyRequest,
    reply: FastifyReply,
    row: ProductsTable,
    extra: { notice?: string | null; state?: ProductFormState },
    status = 200,
  ) {
    const session = member(request);
    const [store, checkouts, bump] = await Promise.all([
      findStore(db, session.storeId),
      usableCheckouts(session.storeId),
      row.order_bump_product_id ? findProduct(db, session.storeId, row.order_bump_product_id) : undefined,
    ]);
    const bumpCode = bump?.codigo ?? null;
    return sendPage(request, reply, services, {
      title: row.nome,
      nav: 'products',
      status,
      body: (
        <ProductPage
          product={row}
          pageUrl={`${config.publicUrl}/p/${store!.handle}/${row.slug}`}
          bumpCode={bumpCode}
          checkouts={checkouts}
          canEdit={roleAllows(session.role, 'editor')}
          notice={extra.notice ?? null}
          state={extra.state ?? { values: productValues(toProduct(row), bumpCode), errors: {} }}
        />
      ),
    });
  }

  app.get('/produtos', guard('viewer', { querystring: ListQuery }), async (request, reply) => {
    const session = member(request);
    const archived = request.query.status === 'arquivados';
    const { rows, next } = await readListPage(
      listProductsQuery(db, session.storeId, { ativo: !archived }),
      'products',
      request.query.antes,
    );
    return sendPage(request, reply, services, {
      title: 'Produtos',
      nav: 'products',
      body: (
        <ProductsList
          rows={rows}
          next={next}
          archived={archived}
          canEdit={roleAllows(session.role, 'editor')}
          notice={noticeOf(NOTICES, request.query.aviso)}
        />
      ),
    });
  });

  app.get('/produtos/novo', guard('editor'), async (request, reply) => showForm(request, reply, EMPTY_FORM));

  app.post('/produtos', guard('editor', { body: ProductForm }), async (request, reply) => {
    const { _csrf, ...values } = request.body;
    let product: Product;
    try {
      const body = await creationBody(db, member(request).storeId, request.body);
      product = await createProduct(
        db,
        await storeWriteContext(db, request),
        body,
        undefined,
        record(request, 'product_created'),
      );
    } catch (error) {
      return showForm(request, reply, refusal(error, values), 400);
    }
    return reply.redirect(`${PATH}/${product.id}?aviso=criado`, 303);
  });

  app.get(
    '/produtos/:id',
    guard('viewer', { params: IdParams, querystring: NoticeQuery }),
    async (request, reply) =>
      showProduct(request, reply, await productOr404(request, request.params.id), {
        notice: noticeOf(NOTICES, request.query.aviso),
      }),
  );

  app.post(
    '/produtos/:id',
    guard('editor', { params: IdParams, body: ProductForm }),
    async (request, reply) => {
      const row = await productOr404(request, request.params.id);
      const { _csrf, ...values } = request.body;
      let product: Product;
      try {
        const body = await changeBody(db, row.store_id, request.body);
        const changed = (after: Product) => `: ${changedFields(toProduct(row), after).join(', ')}`;
        product = await editProduct(
          db,
          await storeWriteContext(db, request),
          row.id,
          body,
          record(request, 'product_updated', changed),
        );
      } catch (error) {
        return showProduct(request, reply, row, { state: refusal(error, values) }, 400);
      }
      return reply.redirect(`${PATH}/${product.id}?aviso=salvo`, 303);
    },
  );

  app.post(
    '/produtos/:id/arquivar',
    guard('editor', { params: IdParams, body: CsrfBody }),
    async (request, reply) => {
      const row = await productOr404(request, request.params.id);
      await archiveProduct(
        db,
        await storeWriteContext(db, request),
        row.id,
        record(request, 'product_archived'),
      );
      return reply.redirect(`${PATH}/${row.id}?aviso=arquivado`, 303);
    },
  );

  app.post(
    '/produtos/:id/reativar',
    guard('editor', { params: IdParams, body: CsrfBody }),
    async (request, reply) => {
      const row = await productOr404(request, request.params.id);
      await editProduct(
        db,
        await storeWriteContext(db, request),
        row.id,
        { ativo: true },
        record(request, 'product_reactivated'),
      );
      return reply.redirect(`${PATH}/${row.id}?aviso=reativado`, 303);
    },
  );
});
