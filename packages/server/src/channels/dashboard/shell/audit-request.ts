import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { audit } from '../../../domain/accounts/audit.js';
import type { AuditAction } from '../../../domain/accounts/audit.js';
import { member } from './page.js';

/**
 * An entry by the request's signed-in member, in their store, from their IP; `db` may be the change's
 * own transaction, so the entry and the change are written together.
 */
export function auditRequest(
  db: Kysely<Database>,
  request: FastifyRequest,
  action: AuditAction,
  detail: string,
): Promise<void> {
  const session = member(request);
  return audit(db, { storeId: session.storeId, userId: session.userId, action, detail, ip: request.ip });
}
