import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { killLeftBehind } from './children.js';

const run = promisify(execFile);
const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Tests that spawn the real CLI (serve, worker, the CLI binary's own tests) run the compiled output,
 * and the purchase pages serve the compiled browser script, so the server is built once before any
 * test file starts: `tsc -b`, which skips an up-to-date project in under a second. Type errors are
 * the typecheck's job; tsc still emits, and only a missing output stops the tests.
 *
 * The teardown kills any process a test left running and fails the run naming it (see children.ts).
 */
export default async function setup(): Promise<() => void> {
  try {
    await run('npx', ['tsc', '-b', 'tsconfig.build.json', 'browser/tsconfig.json'], { cwd: SERVER_DIR });
  } catch (error) {
    const outputs = ['dist/channels/cli/main.js', 'dist/browser/page.js'];
    if (outputs.some((output) => !existsSync(join(SERVER_DIR, output)))) {
      throw new Error(`building packages/server failed:\n${(error as { stdout?: string }).stdout ?? error}`);
    }
  }
  const children = mkdtempSync(join(tmpdir(), 'storefront-test-children-'));
  process.env.STOREFRONT_TEST_CHILDREN_DIR = children;
  return () => {
    const left = killLeftBehind(children);
    rmSync(children, { recursive: true, force: true });
    if (left.length > 0) {
      // Vitest only prints an error thrown here: the exit code is what fails a CI run.
      process.exitCode = 1;
      throw new Error(`tests left ${left.length} process(es) running (now killed):\n${left.join('\n')}`);
    }
  };
}
