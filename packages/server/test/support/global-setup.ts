import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Tests that spawn the real CLI (serve, worker, the CLI commands) run the compiled output, and the
 * purchase pages serve the compiled browser script, so the server is built once before any test file starts (incremental: a few seconds when up to date).
 * Type errors are the typecheck's job; tsc still emits, and only a missing output stops the tests.
 */
export default async function setup(): Promise<void> {
  try {
    await run('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: SERVER_DIR });
    await run('npx', ['tsc', '-p', 'browser/tsconfig.json'], { cwd: SERVER_DIR });
  } catch (error) {
    if (!existsSync(`${SERVER_DIR}/dist/cli/main.js`) || !existsSync(`${SERVER_DIR}/dist/browser/page.js`)) {
      throw new Error(`building packages/server failed:\n${(error as { stdout?: string }).stdout ?? error}`);
    }
  }
}
