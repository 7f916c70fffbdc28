import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError, invalidRequest } from './api-error.js';
import { UNSTORABLE_CHARACTER, UNSTORABLE_TEXT_MESSAGE } from './text-patterns.js';

const isUnstorable = (text: string) => UNSTORABLE_CHARACTER.test(text);

/** A value still to look at, and how it was reached: its key and the frame of its parent. */
interface Frame {
  value: unknown;
  key: string | null;
  parent: Frame | null;
}

/** The dotted path of a frame, built only for the one being reported. */
function pathOf(frame: Frame | null): string {
  const keys: string[] = [];
  for (let at = frame; at !== null && at.key !== null; at = at.parent) keys.push(at.key);
  return keys.reverse().join('.');
}

/**
 * The dotted path of the first string (or object key) in `value` that holds unstorable text, `''`
 * for `value` itself, or null when everything is storable. A bad key is named by its parent.
 * Depth-first in document order, with an explicit stack and parent links rather than recursion and a
 * copied path per level: the time is linear in the size of the value, whatever its shape.
 */
export function findUnstorableText(value: unknown): string | null {
  const stack: Frame[] = [{ value, key: null, parent: null }];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    if (frame.key !== null && isUnstorable(frame.key)) return pathOf(frame.parent);
    const item = frame.value;
    if (typeof item === 'string') {
      if (isUnstorable(item)) return pathOf(frame);
      continue;
    }
    if (typeof item !== 'object' || item === null) continue;
    const keys = Object.keys(item);
    // Pushed last to first, so the first key comes off the stack first.
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      stack.push({ value: (item as Record<string, unknown>)[key], key, parent: frame });
    }
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
