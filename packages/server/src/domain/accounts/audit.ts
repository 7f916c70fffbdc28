import type { ColumnType, Insertable, Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { Actor, OnWrite } from '../kernel/write-context.js';
import { prefixedId } from '../../platform/values/ids.js';
import { nowIso } from '../../platform/values/time.js';
import { membershipsOf } from './users.js';

export interface AuditLogTable {
  id: string;
  store_id: string;
  /** The person, for `person` entries (null: nobody was signed in, a failed login). */
  user_id: string | null;
  /** `person` unless said otherwise (the column's default: entries from before it were all people's). */
  actor_kind: ColumnType<Actor['kind'], Actor['kind'] | undefined, Actor['kind']>;
  /** An API key's public prefix (`sk_live_abc1…`); null for people and the CLI. */
  actor_label: string | null;
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
  webhook_updated: 'Endpoint de webhook alterado',
  webhook_deleted: 'Endpoint de webhook excluído',
  webhook_secret_rotated: 'Segredo de webhook rotacionado',
  webhook_retried: 'Entrega de webhook reenviada',
  webhook_tested: 'Evento de teste enviado ao webhook',
  psp_settings_changed: 'Configurações do PSP alteradas',
  psp_connection_tested: 'Conexão com o PSP testada',
  card_provider_changed: 'Configurações de cartão alteradas',
  card_connection_tested: 'Conexão com o PSP de cartão testada',
  meta_conversions_changed: 'Conversões Meta alteradas',
  subscription_canceled: 'Assinatura cancelada',
  pix_charge_canceled: 'Cobrança Pix cancelada',
  sale_refunded: 'Venda reembolsada',
  delivery_email_resent: 'E-mail de entrega reenviado',
  store_created: 'Loja criada',
  member_added: 'Pessoa adicionada',
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

function insertEntry(
  db: Kysely<Database>,
  row: Omit<Insertable<AuditLogTable>, 'id' | 'created_at'>,
): Promise<unknown> {
  return db
    .insertInto('audit_log')
    .values({ id: prefixedId('aud'), ...row, created_at: nowIso() })
    .execute();
}

/** Records one entry by a person; run it in the transaction of the change it records when there is one. */
export async function audit(db: Kysely<Database>, entry: AuditEntry): Promise<void> {
  await insertEntry(db, {
    store_id: entry.storeId,
    user_id: entry.userId,
    actor_kind: 'person',
    actor_label: null,
    action: entry.action,
    detail: entry.detail,
    ip: entry.ip,
  });
}

/**
 * Records one entry by any actor (a person, an API key, the CLI). `db` is the change's transaction:
 * flows call it through `auditing(…)`, so every channel records the same way.
 */
export async function recordAudit(
  db: Kysely<Database>,
  storeId: string,
  actor: Actor,
  action: AuditAction,
  detail: string,
): Promise<void> {
  await insertEntry(db, {
    store_id: storeId,
    user_id: actor.kind === 'person' ? actor.userId : null,
    actor_kind: actor.kind,
    actor_label: actor.kind === 'api_key' ? actor.prefix : null,
    action,
    detail,
    ip: actor.kind === 'cli' ? null : actor.ip,
  });
}

/** The entry as a hook a flow runs inside the change's transaction (`WriteContext.onWrite`). */
export function auditing(
  storeId: string,
  actor: Actor,
  action: AuditAction,
  detail: string,
): OnWrite<unknown> {
  return (trx) => recordAudit(trx, storeId, actor, action, detail);
}

/** An entry about a person (a login, their password) in every store they belong to: each store's owners see it. */
export async function auditEveryStore(
  db: Kysely<Database>,
  personId: string,
  entry: Omit<AuditEntry, 'storeId'>,
  /** Who did it when not the person signed in (the operator's CLI). */
  by?: Actor,
): Promise<void> {
  for (const store of await membershipsOf(db, personId))
    if (by) await recordAudit(db, store.store_id, by, entry.action, entry.detail);
    else await audit(db, { ...entry, storeId: store.store_id });
}

export interface AuditRow {
  id: string;
  action: AuditAction;
  actor_kind: Actor['kind'];
  actor_label: string | null;
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
    .select([
      'a.id',
      'a.action',
      'a.actor_kind',
      'a.actor_label',
      'a.detail',
      'a.ip',
      'a.created_at',
      'u.email',
    ])
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

/** Who made an entry, as the owners read it: the person's e-mail, "Chave sk_live_ab12…" or "CLI". */
export function actorName(row: Pick<AuditRow, 'actor_kind' | 'actor_label' | 'email'>): string {
  if (row.actor_kind === 'api_key') return `Chave ${row.actor_label ?? ''}`.trim();
  if (row.actor_kind === 'cli') return 'CLI';
  return row.email ?? '—';
}
