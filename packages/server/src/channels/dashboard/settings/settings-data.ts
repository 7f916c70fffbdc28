import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { hasLivePixProvider } from '../../../domain/payments/api-pix/provider-settings.js';
import { findStore } from '../../../domain/stores/stores.js';
import type { StoresTable } from '../../../domain/stores/stores.js';
import { listAudit } from '../../../domain/accounts/audit.js';
import type { AuditRow } from '../../../domain/accounts/audit.js';
import { findUser } from '../../../domain/accounts/users.js';
import { listMembers } from '../../../domain/accounts/team.js';
import type { Member } from '../../../domain/accounts/team.js';
import { DashboardError } from '../shell/dashboard-plugin.js';
import { member } from '../shell/page.js';

export const AUDIT_PAGE_SIZE = 50;

export interface SettingsData {
  store: StoresTable;
  /** Whether the store has what live charging needs (PSP settings and a Pix key). */
  liveReady: boolean;
  twoStep: boolean;
  /** Owners only: the team and the audit log (null for other roles). */
  members: Member[] | null;
  audit: AuditRow[] | null;
  /** The `antes` of the next audit page, when there is one. */
  auditNext: string | null;
}

/** `antes=<created_at>~<id>`: the row a keyset page starts after (audit log, events log). */
export function auditCursor(value: string | undefined): { created_at: string; id: string } | undefined {
  const [created_at, id, ...rest] = (value ?? '').split('~');
  return created_at && id && rest.length === 0 ? { created_at, id } : undefined;
}

/** What Configurações shows the signed-in person, by role. */
export async function loadSettings(
  db: Kysely<Database>,
  request: FastifyRequest,
  auditBefore?: string,
): Promise<SettingsData> {
  const session = member(request);
  const [store, user] = await Promise.all([findStore(db, session.storeId), findUser(db, session.userId)]);
  if (!store || !user) throw new DashboardError(404, 'Loja não encontrada.');
  const owner = session.role === 'owner';
  const rows = owner ? await listAudit(db, store.id, AUDIT_PAGE_SIZE + 1, auditCursor(auditBefore)) : null;
  const last = rows && rows.length > AUDIT_PAGE_SIZE ? rows[AUDIT_PAGE_SIZE - 1]! : null;
  return {
    store,
    liveReady: await hasLivePixProvider(db, store.id),
    twoStep: user.totp_secret_sealed !== null,
    members: owner ? await listMembers(db, store.id) : null,
    audit: rows ? rows.slice(0, AUDIT_PAGE_SIZE) : null,
    auditNext: last ? `${last.created_at}~${last.id}` : null,
  };
}
