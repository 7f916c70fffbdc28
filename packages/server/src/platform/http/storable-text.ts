import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError, invalidRequest } from './api-error.js';
import { UNSTORABLE_CHARACTER, UNSTORABLE_TEXT_MESSAGE } from './text-patterns.js';

const isUnstorable = (text: string) => UNSTORABLE_CHARACTER.test(text);

/** An array or object being read: its children one at a time, and how it was reached. */
interface Frame {
  container: Record<string, unknown> | unknown[];
  /** The object's own keys; null for an array, read by index. */
  keys: string[] | null;
  next: number;
  key: string | null;
  parent: Frame | null;
}

/** The dotted path of a frame and, when given, one more key: built only for the one reported. */
function pathOf(frame: Frame | null, last?: string): string {
  const keys: string[] = last === undefined ? [] : [last];
  for (let at = frame; at !== null && at.key !== null; at = at.parent) keys.push(at.key);
  return keys.reverse().join('.');
}

const frameOf = (container: object, key: string | null, parent: Frame | null): Frame => ({
  container: container as Frame['container'],
  keys: Array.isArray(container) ? null : Object.keys(container),
  next: 0,
  key,
  parent,
});

/**
 * The dotted path of the first string (or object key) in `value` that holds unstorable text, `''`
 * for `value` itself, or null when everything is storable. A bad key is named by its parent.
 * Depth-first in document order, with an explicit stack of the arrays and objects being read rather
 * than recursion and a copied path per level: the time is linear in the size of the value, and
 * strings, numbers and array indexes cost no allocation.
 */
export function findUnstorableText(value: unknown): string | null {
  if (typeof value === 'string') return isUnstorable(value) ? '' : null;
  if (typeof value !== 'object' || value === null) return null;
  let frame: Frame | null = frameOf(value, null, null);
  while (frame !== null) {
    const { container, keys } = frame;
    const length: number = keys === null ? (container as unknown[]).length : keys.length;
    if (frame.next === length) {
      frame = frame.parent;
      continue;
    }
    const index = frame.next++;
    const key = keys === null ? null : keys[index]!;
    if (key !== null && isUnstorable(key)) return pathOf(frame);
    const item = key === null ? (container as unknown[])[index] : (container as Record<string, unknown>)[key];
    if (typeof item === 'string') {
      if (isUnstorable(item)) return pathOf(frame, key ?? String(index));
    } else if (typeof item === 'object' && item !== null) {
      frame = frameOf(item, key ?? String(index), frame);
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
