import type { Command } from 'commander';
import { print, withDatabase } from './context.js';

export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations')
    .option('--json', 'print one JSON object')
    .action(async (options: { json?: boolean }) => {
      // withDatabase migrates before handing over; what is left is to report.
      await withDatabase(async ({ dialect }) => {
        print(!!options.json, { migrated: true, dialect }, `Database (${dialect}) is up to date.`);
      });
    });
}
