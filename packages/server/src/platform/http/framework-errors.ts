import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { prefixedId } from '../values/ids.js';
import { ApiError } from './api-error.js';
import { sendError } from './errors.js';
import { CONTROL_CHARACTER } from './text-patterns.js';

/*
 * Two kinds of bad request never reach a route, so the errors plugin never sees them: a request
 * Node's HTTP parser refuses (a control character in a header, headers too large) and a URL the
 * router cannot decode or whose path segment is over-long. Both still leave as the error envelope.
 */

/** A path the router cannot read can only address no resource: 404, as any malformed id is. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('Request-Id', request.id);
  void sendError(
    request,
    reply,
    new ApiError(
      404,
      'not_found',
      'No such resource: the path is not a valid URL or an id in it is too long.',
    ),
  );
}

/** The name of the first header line holding a control character, as sent. */
function headerWithControlCharacter(raw: unknown): string | null {
  // Node hands the bytes it was parsing as a Buffer (fastify's type says otherwise).
  const lines = (Buffer.isBuffer(raw) ? raw.toString('latin1') : '').split('\r\n').slice(1);
  for (const line of lines) {
    if (line === '') break;
    const colon = line.indexOf(':');
    if (colon > 0 && CONTROL_CHARACTER.test(line.slice(colon + 1))) {
      const name = line.slice(0, colon).trim();
      return name.toLowerCase() === 'idempotency-key' ? 'Idempotency-Key' : name;
    }
  }
  return null;
}

function describe(error: ConnectionError): ApiError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError(408, 'request_timeout', 'The request took too long to arrive.');
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError(431, 'invalid_request', 'The request headers are too large.');
  }
  const header = headerWithControlCharacter(error.rawPacket);
  if (header !== null) {
    return new ApiError(
      400,
      'invalid_request',
      `Invalid header ${header}: must not contain control characters.`,
      header,
    );
  }
  return new ApiError(400, 'invalid_request', 'The request is not valid HTTP/1.1.');
}

/** Node's `clientError`: answer the envelope on the raw socket (there is no request), then close it. */
export function clientErrorHandler(error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const apiError = describe(error);
  const requestId = prefixedId('req');
  const body = JSON.stringify({
    error: { code: apiError.code, message: apiError.message, param: apiError.param, request_id: requestId },
  });
  if (socket.writable) {
    socket.write(
      [
        `HTTP/1.1 ${apiError.statusCode} ${STATUS_CODES[apiError.statusCode]}`,
        `Request-Id: ${requestId}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  }
  socket.destroy();
}
