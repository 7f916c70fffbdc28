import { sql } from 'kysely';
import type { TestApi } from './test-api.js';

export interface AuditRecord {
  action: string;
  detail: string;
  actor_kind: string;
  actor_label: string | null;
  user_id: string | null;
  ip: string | null;
}

/** A store's audit entries, oldest first, with who made each (only actions starting with `prefix`). */
export async function auditRecords(api: TestApi, storeId: string, prefix = ''): Promise<AuditRecord[]> {
  const rows = await api.db
    .selectFrom('audit_log')
    .select(['action', 'detail', 'actor_kind', 'actor_label', 'user_id', 'ip'])
    .where('store_id', '=', storeId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.filter((row) => row.action.startsWith(prefix));
}

/**
 * Runs `work` while the database refuses every audit entry (a trigger on `audit_log`): a change
 * whose entry is written in its own transaction is then undone with it, and one audited afterwards
 * stays. A fault of the database, not a stand-in for our code.
 */
export async function withAuditRefused<T>(api: TestApi, work: () => Promise<T>): Promise<T> {
  const statements =
    api.dialect === 'sqlite'
      ? [
          `create trigger audit_refused before insert on audit_log begin select raise(abort, 'audit refused'); end`,
        ]
      : [
          `create function audit_refused() returns trigger language plpgsql as $$ begin raise exception 'audit refused'; end $$`,
          `create trigger audit_refused before insert on audit_log for each row execute function audit_refused()`,
        ];
  const undo =
    api.dialect === 'sqlite'
      ? ['drop trigger audit_refused']
      : ['drop trigger audit_refused on audit_log', 'drop function audit_refused()'];
  for (const statement of statements) await sql.raw(statement).execute(api.db);
  try {
    return await work();
  } finally {
    for (const statement of undo) await sql.raw(statement).execute(api.db);
  }
}
