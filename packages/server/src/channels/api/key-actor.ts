import type { FastifyRequest } from 'fastify';
import type { Actor } from '../../domain/kernel/write-context.js';

/** The request's API key, by its public prefix (never the secret), as the owners' audit log names it. */
export function keyActor(request: FastifyRequest): Actor {
  return { kind: 'api_key', prefix: request.auth.prefix, ip: request.ip };
}
