import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { invalidRequest } from './api-error.js';
import { jsonShapeRefusal } from './json-shape.js';

const takesNoBody = (request: FastifyRequest) => request.routeOptions.schema?.body === undefined;

/**
 * Request bodies are JSON, on every route. Many HTTP clients send `Content-Type: application/json`
 * (or another type) by default, even with no body: an operation that takes no body accepts an empty
 * one whatever its type. Any other body must be JSON; Fastify would otherwise read `text/plain` as a
 * string and answer with the schema's "must be object". JSON too deep or with too many arrays and
 * objects (json-shape.ts) is refused before it is parsed, on every route, the open ones (PSP
 * callbacks, purchase pages) first.
 */
export const bodyParsingPlugin = fp(async (app: FastifyInstance) => {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && takesNoBody(request)) return done(null, undefined);
    const refusal = jsonShapeRefusal(body as string);
    if (refusal !== null) return done(invalidRequest(refusal), undefined);
    // Answers through done; its return value is not a promise to wait for.
    void parseJson(request, body as string, done);
  });
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && takesNoBody(request)) return done(null, undefined);
    done(invalidRequest('Content-Type must be application/json.'), undefined);
  });
});
