import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { sendCreation } from '../../platform/http/idempotency.js';
import { IdParams, ListEnvelope, errorResponses } from '../../platform/http/schemas.js';
import { Product, toProduct } from '../../domain/catalogue/product-object.js';
import {
  CreateProductBody,
  ListProductsQuery,
  UpdateProductBody,
} from '../../domain/catalogue/product-schemas.js';
import {
  archiveProduct,
  createProduct,
  editProduct,
  productOr404,
} from '../../domain/catalogue/product-service.js';
import { listProductsQuery } from '../../domain/catalogue/products-repository.js';

export async function productsRoutes(parent: FastifyInstance): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app;
  const tags = ['Products'];

  app.get(
    '/products',
    {
      config: { scope: 'products:read' },
      schema: {
        tags,
        operationId: 'listProducts',
        summary: 'List products, newest first, optionally filtered by ativo, codigo or slug',
        querystring: ListProductsQuery,
        response: { 200: ListEnvelope(Product), ...errorResponses(400) },
      },
    },
    async (request) => {
      const { limit, starting_after: startingAfter, ...filters } = request.query;
      const { storeId } = request.auth;
      return app.pagination.list(
        { listing: 'products', storeId, limit: limit ?? 20, startingAfter },
        listProductsQuery(db, storeId, filters),
        toProduct,
      );
    },
  );

  app.post(
    '/products',
    {
      config: { scope: 'products:write', idempotent: true },
      schema: {
        tags,
        operationId: 'createProduct',
        summary: 'Create a product; codigo is generated, and slug too when omitted',
        body: CreateProductBody,
        response: { 201: Product, ...errorResponses(400, 409) },
      },
    },
    async (request, reply) =>
      sendCreation(request, reply, 201, (keep) => createProduct(db, request.auth, request.body, keep)),
  );

  app.get(
    '/products/:id',
    {
      config: { scope: 'products:read' },
      schema: {
        tags,
        operationId: 'getProduct',
        summary: 'Retrieve a product',
        params: IdParams,
        response: { 200: Product, ...errorResponses(404) },
      },
    },
    async (request) => toProduct(await productOr404(db, request.auth.storeId, request.params.id)),
  );

  app.patch(
    '/products/:id',
    {
      config: { scope: 'products:write' },
      schema: {
        tags,
        operationId: 'updateProduct',
        summary: 'Update a product: only the fields sent change; ativo=true reactivates it',
        params: IdParams,
        body: UpdateProductBody,
        response: { 200: Product, ...errorResponses(400, 404) },
      },
    },
    async (request) => editProduct(db, request.auth, request.params.id, request.body),
  );

  app.post(
    '/products/:id/archive',
    {
      config: { scope: 'products:write' },
      schema: {
        tags,
        operationId: 'archiveProduct',
        summary: 'Archive a product (ativo=false, idempotent); it stays retrievable and listable',
        params: IdParams,
        response: { 200: Product, ...errorResponses(404) },
      },
    },
    async (request) => archiveProduct(db, request.auth, request.params.id),
  );
}
