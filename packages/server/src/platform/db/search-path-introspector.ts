import { PostgresDialect, sql } from 'kysely';
import type {
  ColumnMetadata,
  DatabaseIntrospector,
  DatabaseMetadata,
  DatabaseMetadataOptions,
  Kysely,
  SchemaMetadata,
  TableMetadata,
} from 'kysely';

interface ColumnRow {
  schema: string;
  table: string;
  table_type: string;
  column: string;
  not_null: boolean;
  has_default: boolean;
  type: string;
  type_schema: string;
  column_description: string | null;
  auto_incrementing: boolean;
}

const MIGRATION_TABLES = ['kysely_migration', 'kysely_migration_lock'];

/**
 * Kysely's own PostgreSQL introspector reads the tables of every schema in the database and turns
 * each one's name back into an oid (`pg_get_serial_sequence(schema || '.' || table)`,
 * `has_schema_privilege(schema)`). When another session drops a schema during that read, the lookup
 * fails with "schema … does not exist" (3F000), so a migration run at start-up could fail because of
 * someone else's DDL on a shared database; it also scanned every schema at each start. Storefront
 * only reads and migrates the schemas of its connection's `search_path`, so this introspector sees
 * those alone and looks nothing up by name.
 */
export class SearchPathIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;

  constructor(db: Kysely<unknown>) {
    this.#db = db;
  }

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`
      select nspname as name from pg_catalog.pg_namespace order by nspname`.execute(this.#db);
    return rows;
  }

  async getTables(
    options: DatabaseMetadataOptions = { withInternalKyselyTables: false },
  ): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      select ns.nspname as schema, c.relname as table, c.relkind as table_type,
             a.attname as column, a.attnotnull as not_null, a.atthasdef as has_default,
             typ.typname as type, dtns.nspname as type_schema,
             col_description(c.oid, a.attnum) as column_description,
             (a.attidentity <> '' or pg_get_serial_sequence(c.oid::regclass::text, a.attname) is not null)
               as auto_incrementing
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      join pg_catalog.pg_attribute a on a.attrelid = c.oid
      join pg_catalog.pg_type typ on typ.oid = a.atttypid
      join pg_catalog.pg_namespace dtns on dtns.oid = typ.typnamespace
      where ns.nspname = any (current_schemas(false))
        and c.relkind in ('r', 'v', 'p')
        and a.attnum > 0
        and not a.attisdropped
      order by ns.nspname, c.relname, a.attnum`.execute(this.#db);
    const wanted = options.withInternalKyselyTables
      ? rows
      : rows.filter((row) => !MIGRATION_TABLES.includes(row.table));
    return tablesOf(wanted);
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}

function tablesOf(rows: ColumnRow[]): TableMetadata[] {
  const tables = new Map<string, { table: TableMetadata; columns: ColumnMetadata[] }>();
  for (const row of rows) {
    const key = `${row.schema}.${row.table}`;
    let entry = tables.get(key);
    if (!entry) {
      const columns: ColumnMetadata[] = [];
      entry = {
        columns,
        table: { name: row.table, schema: row.schema, isView: row.table_type === 'v', columns },
      };
      tables.set(key, entry);
    }
    entry.columns.push({
      name: row.column,
      dataType: row.type,
      dataTypeSchema: row.type_schema,
      isNullable: !row.not_null,
      hasDefaultValue: row.has_default,
      isAutoIncrementing: row.auto_incrementing,
      ...(row.column_description === null ? {} : { comment: row.column_description }),
    });
  }
  return [...tables.values()].map((entry) => entry.table);
}

/** PostgreSQL as Kysely speaks it, introspecting only the connection's `search_path`. */
export class SearchPathPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SearchPathIntrospector(db);
  }
}
