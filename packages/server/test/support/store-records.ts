import type { TestApi } from './test-api.js';

/** The events of a store whose object has this id, oldest first, as their types. */
export async function eventTypesOf(api: TestApi, storeId: string, objectId: string): Promise<string[]> {
  const rows = await api.db
    .selectFrom('events')
    .select(['type', 'payload'])
    .where('store_id', '=', storeId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.filter((row) => JSON.parse(row.payload).data.object.id === objectId).map((row) => row.type);
}

/** A store's audit log, oldest first, as `action: detail` (only actions starting with `prefix`). */
export async function auditOf(api: TestApi, storeId: string, prefix = ''): Promise<string[]> {
  const rows = await api.db
    .selectFrom('audit_log')
    .select(['action', 'detail'])
    .where('store_id', '=', storeId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.filter((row) => row.action.startsWith(prefix)).map((row) => `${row.action}: ${row.detail}`);
}
