import { sql } from 'kysely';
import type { QueryExecutor, RawBuilder } from 'kysely';
import { isPostgres } from './sql-dialect.js';

/**
 * Fields read inside JSON text columns, written once per dialect. The same text is indexed by
 * migration 0018 and used by queries: a database uses an index on an expression only when the query
 * repeats that expression, so both take it from here. Column names are left unqualified for the same
 * reason.
 */
export const JSON_FIELDS = {
  /** A sale's customer e-mail, lower-cased: searched by exact address. */
  customerEmail: {
    sqlite: "lower(json_extract(customer, '$.email'))",
    postgres: "lower(customer::jsonb ->> 'email')",
  },
  /** A sale's customer CPF/CNPJ, kept bare and upper-case by the API. */
  customerDocument: {
    sqlite: "json_extract(customer, '$.document')",
    postgres: "(customer::jsonb ->> 'document')",
  },
  /** A sale's customer name: searched by substring, accents and case ignored (folded-text.ts; no index). */
  customerName: {
    sqlite: "json_extract(customer, '$.name')",
    postgres: "(customer::jsonb ->> 'name')",
  },
  /** The id of the object an event is about (a sale, a charge …). */
  eventObjectId: {
    sqlite: "json_extract(payload, '$.data.object.id')",
    postgres: "(payload::jsonb #>> '{data,object,id}')",
  },
} as const;

export type JsonField = keyof typeof JSON_FIELDS;

/** The field's expression as this database writes it. */
export function jsonFieldSql(db: { getExecutor(): QueryExecutor }, field: JsonField): string {
  return JSON_FIELDS[field][isPostgres(db) ? 'postgres' : 'sqlite'];
}

/** The field's expression for a query. */
export function jsonField<T = string | null>(
  db: { getExecutor(): QueryExecutor },
  field: JsonField,
): RawBuilder<T> {
  return sql<T>`${sql.raw(jsonFieldSql(db, field))}`;
}
