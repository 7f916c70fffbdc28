import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { auditing, recordAudit } from '../../../domain/accounts/audit.js';
import type { AuditAction } from '../../../domain/accounts/audit.js';
import type { Actor, OnWrite } from '../../../domain/kernel/write-context.js';
import { member } from './page.js';

/** The request's signed-in member, from their IP, as the audit log names them. */
export function personActor(request: FastifyRequest): Actor {
  return { kind: 'person', userId: member(request).userId, ip: request.ip };
}

/**
 * An entry by the request's signed-in member, in their store; `db` is the change's own transaction,
 * so the entry and the change are written together (or, for an action that changes nothing stored,
 * such as a test e-mail, the database itself).
 */
export function auditRequest(
  db: Kysely<Database>,
  request: FastifyRequest,
  action: AuditAction,
  detail: string,
): Promise<void> {
  return recordAudit(db, member(request).storeId, personActor(request), action, detail);
}

/** The same entry as a hook a flow runs inside its own transaction (`onWrite`). */
export function auditingRequest(
  request: FastifyRequest,
  action: AuditAction,
  detail: string,
): OnWrite<unknown> {
  return auditing(member(request).storeId, personActor(request), action, detail);
}
