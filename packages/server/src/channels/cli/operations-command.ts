import type { Command } from 'commander';
import { MAX_RETENTION_DAYS } from '../../platform/config/config.js';
import { backupSqlite } from '../../platform/db/backup.js';
import { pruneOldRows } from '../../flows/retention.js';
import { loadConfigOrExit, print, withDatabase } from './context.js';
import { fail } from '../server/fail.js';

const PG_DUMP_ADVICE = `storefront backup copies SQLite databases only. For PostgreSQL, use its own tools:
  pg_dump --format=custom --file=storefront.dump "$DATABASE_URL"
and restore into an empty database with:
  pg_restore --no-owner --dbname="$DATABASE_URL" storefront.dump
Keep STOREFRONT_SECRET with the dump: without it, webhook secrets cannot be opened.`;

function days(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) > MAX_RETENTION_DAYS) {
    fail(`--older-than must be a whole number of days between 0 and ${MAX_RETENTION_DAYS}, got "${raw}"`);
  }
  return Number(raw);
}

export function registerOperationsCommands(program: Command): void {
  program
    .command('prune')
    .description('delete events, delivery attempts and other transient records past retention, once')
    .option('--older-than <days>', 'the window in days (default STOREFRONT_RETENTION_DAYS, 30)', days)
    .option('--json', 'print one JSON object')
    .action(async (options: { olderThan?: number; json?: boolean }) => {
      await withDatabase(async (db, config) => {
        const olderThanDays = options.olderThan ?? config.retentionDays;
        const pruned = await pruneOldRows(db.kysely, { olderThanDays });
        const lines = Object.entries(pruned).map(([table, count]) => `  ${table}: ${count}`);
        print(
          !!options.json,
          { older_than_days: olderThanDays, pruned },
          [`Pruned rows older than ${olderThanDays} days:`, ...lines].join('\n'),
        );
      });
    });

  program
    .command('backup <file>')
    .description(
      'copy the SQLite database to <file> while the service keeps running (PostgreSQL: use pg_dump)',
    )
    .option('--json', 'print one JSON object')
    .action(async (file: string, options: { json?: boolean }) => {
      const config = loadConfigOrExit();
      if (!config.databaseUrl.startsWith('sqlite:')) {
        console.error(PG_DUMP_ADVICE);
        process.exit(1);
      }
      const result = await backupSqlite(config.databaseUrl.slice('sqlite:'.length), file).catch(
        (error: Error) => fail(`backup failed: ${error.message}`),
      );
      print(
        !!options.json,
        result,
        `Backed up ${result.pages} pages (${result.bytes} bytes) to ${file} in ${result.seconds.toFixed(2)} s.\n` +
          'Keep STOREFRONT_SECRET (or storefront.secret beside the database) with it.',
      );
    });
}
