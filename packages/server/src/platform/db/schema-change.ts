const SCHEMA_CHANGE = /^\s*(?:create|alter|drop)\s/i;

/**
 * Whether a statement changes the schema. Both statement caches leave these out: they run once, and
 * afterwards a cached `select *` may return other columns.
 */
export function changesSchema(sql: string): boolean {
  return SCHEMA_CHANGE.test(sql);
}
