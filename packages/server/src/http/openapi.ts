import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ErrorEnvelope } from './schemas.js';

export const API_PREFIX = '/api/public/v1';

/**
 * The OpenAPI 3.1 document is generated from the route schemas, the single source of validation,
 * types and documentation (spec §9: version 1.0.0).
 */
export const openapiPlugin = fp(async (app: FastifyInstance) => {
  app.addSchema(ErrorEnvelope);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Storefront API',
        version: '1.0.0',
        description:
          'Checkouts, products, Pix charges, sales and signed webhooks for online stores selling in Brazil.',
      },
      servers: [{ url: API_PREFIX }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'sk_test_… or sk_live_…' },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    // Paths are documented relative to the server URL, as the spec writes them.
    transform: ({ schema, url }) => ({
      schema,
      url: url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) : url,
    }),
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
});
