// The tests' own fake PSP and HTTPS receiver (packages/server/test/support), compiled with tsc into
// bench/.build/ so a bench drives exactly what the tests do; nothing is copied by hand.
import { execFileSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoDir } from './paths.mjs';

const support = join(repoDir, 'packages/server/test/support');
const build = join(repoDir, 'bench/.build');
/** Data files the support modules read beside themselves at run time. */
const DATA_FILES = ['api-pix-2.9.0-rec.schemas.json'];

/** Compiles `files` (names in test/support) and returns an importer of the compiled modules. */
export function buildTestSupport(files) {
  execFileSync(
    'npx',
    [
      'tsc',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--esModuleInterop',
      '--skipLibCheck',
      '--outDir',
      build,
      '--rootDir',
      support,
      ...files.map((file) => join(support, file)),
    ],
    { cwd: repoDir, stdio: 'inherit' },
  );
  for (const file of DATA_FILES) copyFileSync(join(support, file), join(build, file));
  return (name) => import(join(build, name));
}
