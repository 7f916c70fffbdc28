import { ConfigError, loadConfig } from '../../platform/config/config.js';
import type { Config } from '../../platform/config/config.js';
import { openDatabase } from '../../platform/db/database.js';
import type { Db } from '../../platform/db/database.js';
import { migrateToLatest } from '../../platform/db/migrations/migrate.js';
import type { Actor } from '../../domain/kernel/write-context.js';

/** The operator, as the owners' audit log names every change a command makes to a store: "CLI". */
export const CLI: Actor = { kind: 'cli' };

/** A bad configuration ends the process with a message naming the variable, not a stack trace. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`storefront: invalid configuration: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
}

/** Opens the configured database with every migration applied, runs `work`, and closes it. */
export async function withDatabase<T>(work: (db: Db, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfigOrExit();
  const db = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(db.kysely);
    return await work(db, config);
  } finally {
    await db.close();
  }
}

export function print(json: boolean, value: unknown, human: string): void {
  console.log(json ? JSON.stringify(value) : human);
}

/** On stderr, so `--json` output stays one object; the command still succeeds. */
export function warn(message: string): void {
  console.error(`storefront: warning: ${message}`);
}
