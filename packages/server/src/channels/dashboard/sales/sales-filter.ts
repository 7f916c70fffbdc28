import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { Compilable, Kysely } from 'kysely';
import { addDays, localDayStart } from '../../../platform/values/local-date.js';
import { foldedContains } from '../../../platform/db/folded-text.js';
import { jsonField, jsonFieldSql } from '../../../platform/db/json-fields.js';
import type { Database } from '../../../platform/db/schema.js';
import { fromBool } from '../../../platform/db/schema.js';
import type { SaleStatus, SalesTable } from '../../../domain/sales/sale-object.js';

/** A day as `<input type="date">` sends it; empty when the field was left blank. */
const DateField = Type.Union([Type.Literal(''), Type.String({ format: 'date' })]);

/** The filters of Vendas and of its CSV export: the same query string drives both. */
export const SalesQuery = Type.Object(
  {
    status: Type.Optional(
      Type.Union([
        Type.Literal(''),
        Type.Literal('approved'),
        Type.Literal('refunded'),
        Type.Literal('charged_back'),
      ]),
    ),
    /** How the sale was paid: Pix, card or nothing (a free order). */
    metodo: Type.Optional(
      Type.Union([Type.Literal(''), Type.Literal('pix'), Type.Literal('card'), Type.Literal('free')]),
    ),
    de: Type.Optional(DateField),
    ate: Type.Optional(DateField),
    produto: Type.Optional(Type.Union([Type.Literal(''), Type.String({ format: 'uuid' })])),
    q: Type.Optional(Type.String({ maxLength: 200 })),
    /** Keyset cursor: the page starts after this sale (the last row of the page before). */
    antes: Type.Optional(Type.String({ format: 'uuid' })),
  },
  { additionalProperties: false },
);
export type SalesQuery = Static<typeof SalesQuery>;

export interface SalesScope {
  storeId: string;
  livemode: boolean;
  /** The store's time zone: "De" and "Até" are its days. */
  timeZone: string;
}

/** Where a keyset page starts: after this (created_at, id), newest first. */
export interface SaleCursor {
  created_at: string;
  id: string;
}

/**
 * What "Buscar" looks for: an e-mail (it has an @) by exact address, a CPF/CNPJ (11 digits, or 14
 * characters ending in two digits, once dots, dashes, slashes and spaces are gone) by its bare form, anything
 * else as part of the name, accents and case ignored. E-mail and document use their indexes; a name is
 * matched row by row.
 */
export type Search =
  { kind: 'email'; value: string } | { kind: 'document'; value: string } | { kind: 'name'; value: string };

export function parseSearch(raw: string | undefined): Search | null {
  const text = (raw ?? '').trim();
  if (text === '') return null;
  if (text.includes('@')) return { kind: 'email', value: text.toLowerCase() };
  const bare = text.replace(/[.\-/\s]/g, '').toUpperCase();
  // CPF: 11 digits; CNPJ: 14, the last two digits (check digits), the first twelve letters or digits.
  if (/^[0-9]{11}$|^[0-9A-Z]{12}[0-9]{2}$/.test(bare)) return { kind: 'document', value: bare };
  return { kind: 'name', value: text };
}

/**
 * The store's sales of one mode under the filters, newest first, after `cursor`: every condition is
 * in the database, and the order (created_at, id) is the order of the listing indexes.
 */
export interface ListedSale {
  id: string;
  created_at: string;
  status: SaleStatus;
  amount_cents: number;
  payment_method: SalesTable['payment_method'];
  customer: string | null;
  coupon: string | null;
  /** JSON array of SaleItem (the product and its order bumps); null for a charge made through the API. */
  items: string | null;
  /** JSON Tracking (`{}` when the sale came with none). */
  tracking: string;
  product_name: string | null;
  /** A card sale's installments and its card (null for Pix and free sales, or a card the PSP did not name). */
  installments: number | null;
  card_brand: string | null;
  card_last4: string | null;
}

export function filteredSales(
  db: Kysely<Database>,
  scope: SalesScope,
  query: SalesQuery,
  cursor: SaleCursor | null,
  limit: number,
  floor: SaleCursor | null = null,
): Promise<ListedSale[]> {
  return filteredSalesQuery(db, scope, query, cursor, limit, floor).execute();
}

/**
 * The sales of the filters after `cursor` and, with a `floor`, not past it, unordered and unselected.
 * Pages start after the cursor with a row-value comparison `(created_at, id) < (…, …)`: both databases
 * read it as one range of the listing index, where the equivalent OR of two conditions is not always.
 */
function salesOfFilter(
  db: Kysely<Database>,
  scope: SalesScope,
  query: SalesQuery,
  cursor: SaleCursor | null,
  floor: SaleCursor | null,
) {
  let select = db
    .selectFrom('sales')
    .where('sales.store_id', '=', scope.storeId)
    .where('sales.livemode', '=', fromBool(scope.livemode));
  if (query.status) select = select.where('sales.status', '=', query.status);
  if (query.produto) select = select.where('sales.product_id', '=', query.produto);
  if (query.metodo) select = select.where('sales.payment_method', '=', query.metodo);
  if (query.de) select = select.where('sales.created_at', '>=', localDayStart(query.de, scope.timeZone));
  if (query.ate)
    select = select.where('sales.created_at', '<', localDayStart(addDays(query.ate, 1), scope.timeZone));
  const search = parseSearch(query.q);
  if (search?.kind === 'email') select = select.where(jsonField(db, 'customerEmail'), '=', search.value);
  if (search?.kind === 'document')
    select = select.where(jsonField(db, 'customerDocument'), '=', search.value);
  if (search?.kind === 'name')
    select = select.where(foldedContains(db, jsonFieldSql(db, 'customerName'), search.value));
  if (cursor)
    select = select.where((eb) =>
      eb(eb.refTuple('sales.created_at', 'sales.id'), '<', eb.tuple(cursor.created_at, cursor.id)),
    );
  if (floor)
    select = select.where((eb) =>
      eb(eb.refTuple('sales.created_at', 'sales.id'), '>=', eb.tuple(floor.created_at, floor.id)),
    );
  return select;
}

/** The query of `filteredSales`, unexecuted (bench/dashboard-sales.mjs prints its plan). */
export function filteredSalesQuery(
  db: Kysely<Database>,
  scope: SalesScope,
  query: SalesQuery,
  cursor: SaleCursor | null,
  limit: number,
  floor: SaleCursor | null = null,
): Compilable<ListedSale> & { execute(): Promise<ListedSale[]> } {
  return salesOfFilter(db, scope, query, cursor, floor)
    .leftJoin('products', 'products.id', 'sales.product_id')
    // Only the card's columns: the searches name the sale's `customer` unqualified.
    .leftJoin(
      (eb) => eb.selectFrom('card_payments').select(['id', 'card_brand', 'card_last4']).as('cards'),
      (join) => join.onRef('cards.id', '=', 'sales.card_payment_id'),
    )
    .select([
      'sales.id',
      'sales.created_at',
      'sales.status',
      'sales.amount_cents',
      'sales.payment_method',
      'sales.customer',
      'sales.coupon',
      'sales.items',
      // Defaulted to '{}' by migration 0015: never undefined on a read.
      (eb) => eb.ref('sales.tracking').$castTo<string>().as('tracking'),
      'products.nome as product_name',
      (eb) => eb.ref('sales.installments').$castTo<number | null>().as('installments'),
      'cards.card_brand',
      'cards.card_last4',
    ])
    .orderBy('sales.created_at', 'desc')
    .orderBy('sales.id', 'desc')
    .limit(limit);
}

/** Sales a page of a name search reads at most (the names of the others are not looked at). */
export const NAME_SEARCH_WINDOW = 2_000;

/**
 * A name has no index: its search reads sales newest first and matches each name. A page of it reads
 * at most NAME_SEARCH_WINDOW sales after the cursor, so its time is bounded whatever the store's size:
 * this is the oldest of them (walked on the listing index alone, no row read), the page's floor; null
 * when fewer remain or the search is not by name. The next page starts after the floor.
 */
export async function nameSearchFloor(
  db: Kysely<Database>,
  scope: SalesScope,
  query: SalesQuery,
  cursor: SaleCursor | null,
): Promise<SaleCursor | null> {
  if (parseSearch(query.q)?.kind !== 'name') return null;
  const row = await salesOfFilter(db, scope, { ...query, q: undefined }, cursor, null)
    .select(['sales.created_at', 'sales.id'])
    .orderBy('sales.created_at', 'desc')
    .orderBy('sales.id', 'desc')
    .offset(NAME_SEARCH_WINDOW - 1)
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}

/** The cursor a sale id names, in this store; null when the store has no such sale. */
export async function cursorOf(
  db: Kysely<Database>,
  storeId: string,
  id: string,
): Promise<SaleCursor | null> {
  const row = await db
    .selectFrom('sales')
    .select(['created_at', 'id'])
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ?? null;
}

/** The store's products for the "Produto" filter, by name. */
export function productChoices(db: Kysely<Database>, storeId: string) {
  return db
    .selectFrom('products')
    .select(['id', 'nome'])
    .where('store_id', '=', storeId)
    .orderBy('nome')
    .orderBy('id')
    .execute();
}
