/** Scopes are flat, not hierarchical: `products:write` does not imply `products:read`. */
export const SCOPES = [
  'checkouts:read',
  'checkouts:write',
  'products:read',
  'products:write',
  'webhooks:read',
  'webhooks:manage',
  'pix:read',
  'pix:write',
  'sales:read',
  'sales:write',
  'coupons:read',
  'coupons:write',
  'orders:read',
  'orders:write',
  'store:read',
  'store:write',
  'subscriptions:read',
  'subscriptions:write',
  'cards:read',
  'cards:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** `all` or a comma list; throws on an unknown scope so a typo never grants less than intended silently. */
export function parseScopes(list: string): Scope[] {
  if (list.trim() === 'all') return [...SCOPES];
  const scopes = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (scopes.length === 0) throw new Error('at least one scope is required');
  for (const scope of scopes) {
    if (!isScope(scope)) throw new Error(`unknown scope "${scope}"; known: ${SCOPES.join(', ')} or all`);
  }
  return [...new Set(scopes)] as Scope[];
}
