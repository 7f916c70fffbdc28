import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError, invalidRequest } from './api-error.js';
import { UNSTORABLE_CHARACTER, UNSTORABLE_TEXT_MESSAGE } from './text-patterns.js';

const isUnstorable = (text: string) => UNSTORABLE_CHARACTER.test(text);

/**
 * The dotted path of the first string (or object key) in `value` that holds unstorable text, `''`
 * for `value` itself, or null when everything is storable. A bad key is named by its parent.
 */
export function findUnstorableText(value: unknown, path: string[] = []): string | null {
  if (typeof value === 'string') return isUnstorable(value) ? path.join('.') : null;
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, item] of Object.entries(value)) {
    if (isUnstorable(key)) return path.join('.');
    const found = findUnstorableText(item, [...path, key]);
    if (found !== null) return found;
  }
  return null;
}

/** Worded as the validation errors are: `Invalid parameter metadata.order: must not contain …`. */
function refuse(where: 'parameter' | 'query parameter', param: string): ApiError {
  if (param === '') return invalidRequest(`The request body ${UNSTORABLE_TEXT_MESSAGE}.`);
  return invalidRequest(`Invalid ${where} ${param}: ${UNSTORABLE_TEXT_MESSAGE}.`, param);
}

/**
 * One rule for every text a request carries, on every route present and future: no U+0000 and no
 * unpaired surrogate (text-patterns.ts says why). Bodies and query strings are checked before
 * validation (400 naming the field); path ids after it, as a lookup that cannot match
 * (404), so the check order stays authentication, scope, validation, existence.
 */
export const storableTextPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('preValidation', async (request: FastifyRequest, reply: FastifyReply) => {
    // A path no operation has answers 404 whatever it carries (Fastify runs hooks for 404s too).
    if (request.is404) return;
    // The router lets `/products/` match `/products/:id` with an empty id: that path is no operation
    // either, so it gets its context's 404 (the API's JSON, the pages' HTML) before its body is read.
    if (Object.values(request.params as Record<string, string>).includes('')) {
      reply.callNotFound();
      return reply;
    }
    const query = findUnstorableText(request.query);
    if (query !== null) throw refuse('query parameter', query);
    const body = findUnstorableText(request.body);
    if (body !== null) throw refuse('parameter', body);
  });
  app.addHook('preHandler', async (request: FastifyRequest) => {
    if (request.is404) return;
    if (findUnstorableText(request.params) !== null) {
      throw new ApiError(404, 'not_found', 'No such resource: no id holds NUL or an unpaired surrogate.');
    }
  });
});
