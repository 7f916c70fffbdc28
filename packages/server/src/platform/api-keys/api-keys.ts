import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { newUuid, randomBase62 } from '../values/ids.js';
import { nowIso } from '../values/time.js';
import type { Scope } from './scopes.js';

export type KeyMode = 'test' | 'live';

export interface ApiKeysTable {
  id: string;
  store_id: string;
  mode: KeyMode;
  display_prefix: string;
  key_hash: string;
  scopes: string;
  created_at: string;
  revoked_at: string | null;
}

declare module '../db/schema.js' {
  interface Tables {
    api_keys: ApiKeysTable;
  }
}

export interface ApiKeyInfo {
  id: string;
  store_id: string;
  mode: KeyMode;
  prefix: string;
  scopes: Scope[];
  created_at: string;
  revoked_at: string | null;
}

/** Keys are only ever stored as this hash; the key itself is shown once at creation. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

const KEY_PATTERN = /^sk_(test|live)_[0-9A-Za-z]{32,128}$/;

export function looksLikeApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

function toInfo(row: ApiKeysTable): ApiKeyInfo {
  return {
    id: row.id,
    store_id: row.store_id,
    mode: row.mode,
    prefix: row.display_prefix,
    scopes: row.scopes.split(' ') as Scope[],
    created_at: row.created_at,
    revoked_at: row.revoked_at,
  };
}

export async function createApiKey(
  db: Kysely<Database>,
  input: { storeId: string; mode: KeyMode; scopes: Scope[] },
): Promise<ApiKeyInfo & { key: string }> {
  const key = `sk_${input.mode}_${randomBase62(40)}`;
  const row: ApiKeysTable = {
    id: newUuid(),
    store_id: input.storeId,
    mode: input.mode,
    display_prefix: `${key.slice(0, 12)}…`,
    key_hash: hashApiKey(key),
    scopes: input.scopes.join(' '),
    created_at: nowIso(),
    revoked_at: null,
  };
  await db.insertInto('api_keys').values(row).execute();
  return { ...toInfo(row), key };
}

/** One key by id, in any store (the operator's `keys revoke`), or undefined. */
export async function findApiKey(db: Kysely<Database>, keyId: string): Promise<ApiKeyInfo | undefined> {
  const row = await db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
  return row && toInfo(row);
}

export async function listApiKeys(db: Kysely<Database>, storeId: string): Promise<ApiKeyInfo[]> {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('store_id', '=', storeId)
    .orderBy('created_at', 'desc')
    .execute();
  return rows.map(toInfo);
}

/**
 * Returns false when no such key exists (in that store, when one is named: the dashboard never
 * reaches another store's key); revoking twice keeps the first revocation time.
 */
export async function revokeApiKey(db: Kysely<Database>, keyId: string, storeId?: string): Promise<boolean> {
  const key = await db
    .selectFrom('api_keys')
    .select('id')
    .where('id', '=', keyId)
    .$if(storeId !== undefined, (q) => q.where('store_id', '=', storeId!))
    .executeTakeFirst();
  if (!key) return false;
  await db
    .updateTable('api_keys')
    .set({ revoked_at: nowIso() })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .execute();
  return true;
}

export async function findActiveKeyByHash(db: Kysely<Database>, keyHash: string): Promise<ApiKeyInfo | null> {
  const row = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row ? toInfo(row) : null;
}
