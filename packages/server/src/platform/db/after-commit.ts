import type {
  DatabaseConnection,
  Dialect,
  Driver,
  QueryCompiler,
  QueryExecutor,
  TransactionSettings,
} from 'kysely';

/** What the transaction running on a connection asked to run once it commits. */
const pending = new WeakMap<DatabaseConnection, Set<() => void>>();

/**
 * Runs `effect` once what `db` wrote is committed: when the transaction `db` is commits, or at once
 * when `db` is not a transaction (its statements committed as they ran). Never after a rollback. One
 * effect asked for several times in a transaction runs once. For nudges to other parts of the process
 * (wake a worker): an effect runs right after the commit and must not throw.
 */
export async function afterCommit(
  db: { readonly isTransaction: boolean; getExecutor(): QueryExecutor },
  effect: () => void,
): Promise<void> {
  if (!db.isTransaction) return effect();
  await db.getExecutor().provideConnection(async (connection) => {
    const effects = pending.get(connection);
    if (effects) effects.add(effect);
    else pending.set(connection, new Set([effect]));
  });
}

/** What each transaction running on a connection read once for all its statements (`readOncePer`). */
const readings = new WeakMap<DatabaseConnection, Map<string, Promise<unknown>>>();

/**
 * `read()` once per transaction of `db` and `key`: later calls in the same transaction get the first
 * answer, as every event a change records looks up the same webhook endpoints. Only for rows the
 * transaction itself does not change. Outside a transaction, read every time.
 */
export async function readOncePer<T>(
  db: { readonly isTransaction: boolean; getExecutor(): QueryExecutor },
  key: string,
  read: () => Promise<T>,
): Promise<T> {
  if (!db.isTransaction) return read();
  let byKey!: Map<string, Promise<unknown>>;
  // Only the lookup runs on the connection: `read` queries it, which would wait for this to end.
  await db.getExecutor().provideConnection(async (connection) => {
    byKey = readings.get(connection) ?? new Map();
    readings.set(connection, byKey);
  });
  let answer = byKey.get(key) as Promise<T> | undefined;
  if (!answer) byKey.set(key, (answer = read()));
  return answer;
}

/**
 * The dialect's driver, with `afterCommit`'s effects run as each transaction commits. Whatever opened
 * the transaction (a request of any channel, a worker, the CLI), the effects follow its outcome.
 */
export function withAfterCommit(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new AfterCommitDriver(dialect.createDriver()),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  };
}

type CompileQuery = QueryCompiler['compileQuery'];

class AfterCommitDriver implements Driver {
  constructor(private readonly driver: Driver) {}

  init(): Promise<void> {
    return this.driver.init();
  }

  acquireConnection(): Promise<DatabaseConnection> {
    return this.driver.acquireConnection();
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    pending.delete(connection);
    readings.delete(connection);
    return this.driver.beginTransaction(connection, settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.driver.commitTransaction(connection);
    readings.delete(connection);
    const effects = pending.get(connection);
    pending.delete(connection);
    effects?.forEach((effect) => effect());
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    pending.delete(connection);
    readings.delete(connection);
    return this.driver.rollbackTransaction(connection);
  }

  // A rollback to a savepoint keeps the effects asked for since: at worst a nudge finds nothing to do.
  savepoint(connection: DatabaseConnection, name: string, compileQuery: CompileQuery): Promise<void> {
    return this.driver.savepoint!(connection, name, compileQuery);
  }

  rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: CompileQuery,
  ): Promise<void> {
    return this.driver.rollbackToSavepoint!(connection, name, compileQuery);
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compileQuery: CompileQuery): Promise<void> {
    return this.driver.releaseSavepoint!(connection, name, compileQuery);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.driver.releaseConnection(connection);
  }

  destroy(): Promise<void> {
    return this.driver.destroy();
  }
}
