import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { ApiError } from './api-error.js';
import { describeIssue } from './validation-messages.js';
import type { AjvIssue } from './validation-messages.js';

const CONTEXT_NAMES: Record<string, string> = { querystring: 'query parameter', params: 'path parameter' };

/** `/settings_json/checkout_fundo_cor` → `settings_json.checkout_fundo_cor`. */
function paramOf(issue: AjvIssue): string | null {
  const path = issue.instancePath.split('/').filter(Boolean);
  if (issue.keyword === 'required') path.push(String(issue.params.missingProperty));
  if (issue.keyword === 'additionalProperties') path.push(String(issue.params.additionalProperty));
  return path.length > 0 ? path.join('.') : null;
}

/** The documented 400 for the first schema issue of a request part (body, query, path). */
export function validationError(issues: AjvIssue[], context: string | undefined): ApiError {
  const issue = issues[0]!;
  const param = paramOf(issue);
  const where = CONTEXT_NAMES[context ?? ''] ?? 'parameter';
  if (issue.keyword === 'required')
    return new ApiError(400, 'invalid_request', `Missing required ${where}: ${param}.`, param);
  if (issue.keyword === 'additionalProperties') {
    return new ApiError(400, 'invalid_request', `Unknown ${where}: ${param}.`, param);
  }
  if (param === null) {
    const body = context === 'body' ? 'The request body' : 'The request';
    return new ApiError(400, 'invalid_request', `${body} ${describeIssue(issue, issues)}.`, null);
  }
  return new ApiError(
    400,
    'invalid_request',
    `Invalid ${where} ${param}: ${describeIssue(issue, issues)}.`,
    param,
  );
}

/** Seconds a client is asked to wait while the database is away: it reconnects by itself meanwhile. */
const DATABASE_RETRY_AFTER_S = '2';

/** Fastify's own errors (parsing, content type, size, routing) mapped to the documented codes. */
function frameworkError(error: FastifyError): ApiError {
  if (isDatabaseUnavailable(error)) {
    return new ApiError(
      503,
      'service_unavailable',
      `The database is unavailable right now. Retry after ${DATABASE_RETRY_AFTER_S} s.`,
      null,
      { 'Retry-After': DATABASE_RETRY_AFTER_S },
    );
  }
  const status = error.statusCode ?? 500;
  if (status === 413) return new ApiError(413, 'payload_too_large', 'The request body is larger than 1 MiB.');
  if (error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    return new ApiError(
      400,
      'invalid_request',
      'The request body is empty but Content-Type is application/json.',
    );
  }
  if (status >= 400 && status < 500) {
    const message = error instanceof SyntaxError ? 'The request body is not valid JSON.' : error.message;
    return new ApiError(400, 'invalid_request', message);
  }
  return new ApiError(500, 'internal_error', 'Something went wrong on our side. Please retry.');
}

export function toApiError(error: FastifyError | ApiError): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation && error.validation.length > 0) {
    return validationError(error.validation as AjvIssue[], error.validationContext);
  }
  return frameworkError(error);
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  return reply
    .code(error.statusCode)
    .headers(error.headers)
    .type('application/json; charset=utf-8')
    .send({
      error: { code: error.code, message: error.message, param: error.param, request_id: request.id },
    });
}

/** Every error, Fastify's own included, leaves as `{"error":{code,message,param,request_id}}`. */
export const errorsPlugin = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error);
    // An outage is not a bug: one line per request without a stack, the cause in words.
    if (apiError.code === 'service_unavailable') {
      request.log.warn({ error: error.message, code: error.code }, 'request failed: database unavailable');
    } else if (error instanceof ApiError) {
      // Expected refusals never log a stack: a PSP failure or a missing provider is the operator's to see.
      const details = { code: apiError.code, message: apiError.message };
      if (apiError.statusCode >= 500) request.log.warn(details, 'request failed upstream');
      else if (apiError.code === 'provider_not_configured') request.log.info(details, 'request refused');
    } else if (apiError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(request, reply, apiError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      request,
      reply,
      new ApiError(404, 'not_found', `Unrecognized request URL (${request.method} ${request.url}).`),
    ),
  );
});
