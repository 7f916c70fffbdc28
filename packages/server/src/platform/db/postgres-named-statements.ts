import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { changesSchema } from './schema-change.js';
import { isConnectionFailure } from './unavailable.js';

/** PostgreSQL's answer when a prepared `select *` outlived a change to its table's columns. */
const CACHED_PLAN_CHANGED = '0A000';

/**
 * Gives each distinct SQL text a statement name, so that every connection parses and plans it once
 * and then only binds and executes it. Kysely sends unnamed statements, which PostgreSQL parses and
 * plans on every query: on a primary-key read, naming them gave 1.6-1.9x the queries per second and
 * 30-40% less of the server's CPU per query (bench/README.md, "PostgreSQL statements").
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private issued = 0;

  /** Beyond `max` distinct texts (dynamic SQL), statements stay unnamed: each name lives as long as its connection. */
  constructor(private readonly max = 500) {}

  nameOf(sql: string): string | undefined {
    const known = this.names.get(sql);
    if (known !== undefined || this.names.size >= this.max || changesSchema(sql)) return known;
    return this.rename(sql);
  }

  /**
   * A fresh name, which every connection prepares anew. Used when PostgreSQL refuses a prepared
   * statement whose table changed its columns since (a migration run by another process).
   */
  rename(sql: string): string {
    const name = `sf_${++this.issued}`;
    this.names.set(sql, name);
    return name;
  }
}

class NamedStatementsClient implements PostgresPoolClient {
  /** Set once the connection itself failed (reset, partition): it is then closed, never lent again. */
  private broken: Error | null = null;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly names: StatementNames,
  ) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    sqlOrCursor: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // Kysely's streaming hands over a cursor object, which pg runs as it is.
    if (typeof sqlOrCursor !== 'string') return this.client.query(sqlOrCursor as never);
    // A rollback after a partition would otherwise wait behind the query that never got its answer.
    if (this.broken) return Promise.reject(this.broken);
    const text = sqlOrCursor;
    const name = this.names.nameOf(text);
    const values = parameters as unknown[];
    const result = this.client.query(name ? { name, text, values } : { text, values });
    return result.catch((error: unknown) => {
      // The query fails once; later ones prepare the new name. Retrying here could repeat a
      // statement of a transaction that PostgreSQL has already aborted.
      if (name && (error as { code?: unknown }).code === CACHED_PLAN_CHANGED) this.names.rename(text);
      if (isConnectionFailure(error)) this.broken = error as Error;
      throw error;
    }) as unknown as Promise<PostgresQueryResult<R>>;
  }

  release(): void {
    // Given back with its error, the pool closes the connection (and its socket) instead of keeping it.
    this.client.release(this.broken ?? undefined);
  }
}

/** A pg pool whose connections run Kysely's queries as named (prepared) statements. */
export function withNamedStatements(pool: pg.Pool, names = new StatementNames()): PostgresPool {
  // Kysely keeps per-connection state keyed by the client object: one wrapper per pg client.
  const clients = new WeakMap<pg.PoolClient, NamedStatementsClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let wrapped = clients.get(client);
      if (!wrapped) {
        wrapped = new NamedStatementsClient(client, names);
        clients.set(client, wrapped);
      }
      return wrapped;
    },
    end: () => pool.end(),
  };
}
