#!/usr/bin/env node
// `npm test`: every suite runs, whatever an earlier one reports, and the run fails if any failed.
//
//   npm test                      the server's Vitest suite, then the client's (packages/client)
//   npm test -- <vitest args>     arguments go to Vitest (files, -t, --reporter …)
//
// One suite after the other, not side by side: on a 2-core machine they would only slow each other.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SUITES = [
  ['server (vitest)', 'npx', ['vitest', 'run', ...process.argv.slice(2)]],
  ['client (node --test)', 'npm', ['test', '--silent', '-w', 'packages/client']],
];

let running = null;
// Ctrl-C or a CI's SIGTERM reaches the suite running now (and through it, what it started).
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    running?.kill(signal);
    process.exitCode = 1;
  });
}

const run = (command, args) =>
  new Promise((resolve) => {
    running = spawn(command, args, { cwd: ROOT, stdio: 'inherit' });
    running.once('error', (error) => resolve(`could not start: ${error.message}`));
    running.once('exit', (code, signal) => resolve(code === 0 ? null : `exit ${code ?? signal}`));
  });

const failed = [];
for (const [name, command, args] of SUITES) {
  const problem = await run(command, args);
  running = null;
  console.log(`test: ${name} ${problem ? `FAILED (${problem})` : 'passed'}`);
  if (problem) failed.push(name);
  if (process.exitCode) break; // interrupted: stop here
}
if (failed.length > 0) {
  console.error(`test: ${failed.length} of ${SUITES.length} suites failed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
