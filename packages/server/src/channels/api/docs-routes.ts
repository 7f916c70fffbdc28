import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_PREFIX, API_VERSION } from '../../platform/http/openapi.js';

export const DOCS_PREFIX = '/docs';

/**
 * Nothing on the page may come from elsewhere: the service works offline and the reference must too.
 * Swagger UI sets inline styles from script, hence `'unsafe-inline'` for styles only; images are local
 * or data: URLs (the logo is inlined by the plugin).
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "base-uri 'self'",
  "connect-src 'self'",
  "font-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self' 'unsafe-inline'",
].join('; ');

/**
 * GET /docs: the interactive API reference (Swagger UI), outside the v1 prefix and without a key.
 * Its assets are served from the installed package, never a CDN; the validator badge (an external
 * call) is off. It reads the same document as API clients, `/api/public/v1/openapi.json`.
 * Requires `openapiPlugin` on a parent instance (it provides `app.swagger()`).
 */
/** A plain wordmark instead of the plugin's default logo, inlined as a data: URL by the plugin. */
const LOGO = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="220" height="40" viewBox="0 0 220 40">' +
    '<text x="0" y="28" font-family="sans-serif" font-size="24" font-weight="700" fill="#ffffff">Storefront API</text>' +
    '</svg>',
);

/**
 * The plugin also serves its own copies of the description at /docs/json and /docs/yaml. The page reads
 * the API's (`/api/public/v1/openapi.json`), and building the YAML copy spoiled the JSON one for the
 * life of the process, so the copies are no operation: 404 like any unknown path.
 */
const DESCRIPTION_COPIES = new Set([`${DOCS_PREFIX}/json`, `${DOCS_PREFIX}/yaml`]);

// Callback style: swagger-ui's hook option is typed for it (an async hook would be a misused promise).
function withoutDescriptionCopies(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  if (!DESCRIPTION_COPIES.has(request.routeOptions.url ?? '')) return done();
  reply.callNotFound(); // answered: done() is not called
}

export async function docsRoutes(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    uiHooks: { onRequest: withoutDescriptionCopies },
    staticCSP: DOCS_CSP,
    validatorUrl: false,
    theme: { title: 'Storefront API reference' },
    logo: { type: 'image/svg+xml', content: LOGO },
    uiConfig: {
      urls: [{ url: `${API_PREFIX}/openapi.json`, name: `Storefront API v1 (${API_VERSION})` }],
      deepLinking: true,
      displayOperationId: true,
      displayRequestDuration: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: 1,
      tryItOutEnabled: false,
      persistAuthorization: false,
    },
  });
}
