import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { prefixedId } from '../../platform/values/ids.js';
import { nowIso } from '../../platform/values/time.js';
import { membershipsOf } from './users.js';

export interface AuditLogTable {
  id: string;
  store_id: string;
  user_id: string | null;
  action: AuditAction;
  detail: string;
  ip: string | null;
  created_at: string;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    audit_log: AuditLogTable;
  }
}

/**
 * What the owners' audit log records, with how the dashboard names it. A page that does something
 * owners must be able to trace adds its action here and calls `audit(…)`.
 */
export const AUDIT_ACTIONS = {
  login: 'Entrada no painel',
  login_failed: 'Tentativa de entrada recusada',
  logout: 'Saída do painel',
  member_invited: 'Pessoa convidada',
  member_joined: 'Convite aceito',
  member_removed: 'Pessoa removida',
  member_role_changed: 'Papel alterado',
  store_updated: 'Dados da loja alterados',
  pix_key_changed: 'Chave Pix alterada',
  checkout_mode_changed: 'Modo de cobrança alterado',
  recovery_email_changed: 'E-mail de pedido abandonado alterado',
  password_changed: 'Senha alterada',
  totp_enabled: 'Verificação em duas etapas ativada',
  totp_disabled: 'Verificação em duas etapas desativada',
  totp_reset: 'Verificação em duas etapas redefinida',
  password_reset: 'Senha redefinida',
  api_key_created: 'Chave de API criada',
  api_key_revoked: 'Chave de API revogada',
  webhook_created: 'Endpoint de webhook criado',
  webhook_secret_rotated: 'Segredo de webhook rotacionado',
  webhook_retried: 'Entrega de webhook reenviada',
  psp_settings_changed: 'Configurações do PSP alteradas',
  meta_conversions_changed: 'Conversões Meta alteradas',
  subscription_canceled: 'Assinatura cancelada',
  sale_refunded: 'Venda reembolsada',
  product_created: 'Produto criado',
  product_updated: 'Produto alterado',
  product_archived: 'Produto arquivado',
  product_reactivated: 'Produto reativado',
  coupon_created: 'Cupom criado',
  coupon_updated: 'Cupom alterado',
  coupon_archived: 'Cupom arquivado',
  coupon_reactivated: 'Cupom reativado',
  checkout_created: 'Checkout criado',
  checkout_updated: 'Checkout alterado',
  checkout_archived: 'Checkout arquivado',
  checkout_unarchived: 'Checkout desarquivado',
} as const;

export type AuditAction = keyof typeof AUDIT_ACTIONS;

export interface AuditEntry {
  storeId: string;
  /** Who did it; null when nobody was signed in (a failed login). */
  userId: string | null;
  action: AuditAction;
  /** What changed, in words an owner reads (never a secret). */
  detail: string;
  ip: string | null;
}

/** Records one entry; run it in the transaction of the change it records when there is one. */
export async function audit(db: Kysely<Database>, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      id: prefixedId('aud'),
      store_id: entry.storeId,
      user_id: entry.userId,
      action: entry.action,
      detail: entry.detail,
      ip: entry.ip,
      created_at: nowIso(),
    })
    .execute();
}

/** An entry about a person (a login, their password) in every store they belong to: each store's owners see it. */
export async function auditEveryStore(
  db: Kysely<Database>,
  personId: string,
  entry: Omit<AuditEntry, 'storeId'>,
): Promise<void> {
  for (const store of await membershipsOf(db, personId))
    await audit(db, { ...entry, storeId: store.store_id });
}

export interface AuditRow {
  id: string;
  action: AuditAction;
  detail: string;
  ip: string | null;
  created_at: string;
  email: string | null;
}

/** A store's entries, newest first, a page at a time (keyset: before the given entry). */
export function listAudit(
  db: Kysely<Database>,
  storeId: string,
  limit: number,
  before?: { created_at: string; id: string },
): Promise<AuditRow[]> {
  let query = db
    .selectFrom('audit_log as a')
    .leftJoin('users as u', 'u.id', 'a.user_id')
    .select(['a.id', 'a.action', 'a.detail', 'a.ip', 'a.created_at', 'u.email'])
    .where('a.store_id', '=', storeId);
  if (before) {
    query = query.where((eb) =>
      eb.or([
        eb('a.created_at', '<', before.created_at),
        eb.and([eb('a.created_at', '=', before.created_at), eb('a.id', '<', before.id)]),
      ]),
    );
  }
  return query.orderBy('a.created_at', 'desc').orderBy('a.id', 'desc').limit(limit).execute();
}
