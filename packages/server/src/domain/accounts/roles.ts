/** What a member may do in a store: `viewer` reads, `editor` also edits the catalogue, `owner` everything. */
export type Role = 'owner' | 'editor' | 'viewer';

export const ROLES: readonly Role[] = ['owner', 'editor', 'viewer'];

const RANK: Record<Role, number> = { viewer: 0, editor: 1, owner: 2 };

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Whether a member with `role` may do what needs `required` (roles are nested: owner ⊃ editor ⊃ viewer). */
export function roleAllows(role: Role, required: Role): boolean {
  return RANK[role] >= RANK[required];
}

export const ROLE_LABELS: Record<Role, string> = {
  owner: 'Proprietário',
  editor: 'Editor',
  viewer: 'Leitor',
};
