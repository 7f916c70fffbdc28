import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import SqliteDatabase from 'better-sqlite3';

export interface BackupResult {
  file: string;
  pages: number;
  bytes: number;
  seconds: number;
}

/** All remaining pages in one step (better-sqlite3 clamps to this). */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies a live SQLite database through SQLite's online backup API while `serve` keeps writing.
 *
 * The copy is one backup step: a single read transaction, so it is a consistent snapshot. In WAL
 * mode a reader never blocks the writer, and copying in one step (instead of better-sqlite3's
 * default 100 pages at a time) means a write between steps cannot restart the copy over and over
 * under steady load. It goes to `<file>.partial` first and is renamed when complete, so a crash
 * never leaves a half-written file under the final name.
 */
export async function backupSqlite(sourcePath: string, file: string): Promise<BackupResult> {
  if (!existsSync(sourcePath)) throw new Error(`no database at ${sourcePath}`);
  if (existsSync(file)) throw new Error(`${file} already exists; choose a new file name`);
  const started = process.hrtime.bigint();
  const partial = `${file}.partial`;
  const source = new SqliteDatabase(sourcePath, { fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    rmSync(partial, { force: true });
    const { totalPages } = await source.backup(partial, { progress: () => ALL_PAGES });
    renameSync(partial, file);
    return {
      file,
      pages: totalPages,
      bytes: statSync(file).size,
      seconds: Number(process.hrtime.bigint() - started) / 1e9,
    };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    source.close();
  }
}
