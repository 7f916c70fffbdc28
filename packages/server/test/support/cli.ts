import { format } from 'node:util';
import { fileURLToPath } from 'node:url';
import { runProgram } from '../../src/channels/cli/program.js';
import { spawnChild } from './children.js';

/** The built CLI, as an operator runs it. */
export const CLI_BIN = fileURLToPath(new URL('../../bin/storefront.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a CLI command with `env` added to this process's; a failing command resolves too, with its
 * exit code. `serve` and `worker` (long-lived, with signal handlers) run as the real binary in a child
 * process; every other command runs the binary's own code (program.ts) in this process, since a fresh
 * Node process per command costs seconds on a busy machine. foundation/cli.test.ts keeps testing the
 * binary itself; `spawnCli` runs any command that way.
 */
export function runCli(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  if (args[0] === 'serve' || args[0] === 'worker') return spawnCli(env, ...args);
  const run = queue.then(() => runInProcess(env, args));
  queue = run.catch(() => undefined);
  return run;
}

/** The command as a fresh Node process running bin/storefront.js. */
export function spawnCli(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  const child = spawnChild(process.execPath, [CLI_BIN, ...args], { env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
  });
}

/** One in-process command at a time: it borrows process.env, the console and process.exit. */
let queue: Promise<unknown> = Promise.resolve();

/** What process.exit throws while a command runs in-process, to end it as the exit would. */
class Exit extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code})`);
  }
}

async function runInProcess(env: Record<string, string>, args: string[]): Promise<CliResult> {
  const out = { stdout: '', stderr: '' };
  let exitCode: number | null = null;
  // After an exit, the real process would be gone: nothing more it writes counts.
  const writer =
    (stream: keyof typeof out) =>
    (...values: unknown[]) => {
      if (exitCode === null) out[stream] += `${format(...values)}\n`;
    };
  const streamWriter = (stream: keyof typeof out) => (chunk: string | Uint8Array) => {
    if (exitCode === null) out[stream] += chunk.toString();
    return true;
  };
  const saved = {
    env: Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]])),
    console: { log: console.log, info: console.info, warn: console.warn, error: console.error },
    exit: process.exit,
    stdout: process.stdout.write,
    stderr: process.stderr.write,
  };
  Object.assign(process.env, env);
  console.log = console.info = writer('stdout');
  console.warn = console.error = writer('stderr');
  process.stdout.write = streamWriter('stdout') as typeof process.stdout.write;
  process.stderr.write = streamWriter('stderr') as typeof process.stderr.write;
  process.exit = ((code?: number | string | null) => {
    exitCode ??= Number(code ?? 0);
    throw new Exit(exitCode);
  }) as typeof process.exit;
  try {
    await runProgram([process.execPath, CLI_BIN, ...args]);
    return { code: exitCode ?? 0, ...out };
  } catch (error) {
    if (exitCode !== null) return { code: exitCode, ...out };
    // An uncaught error: Node would print it and exit 1.
    return { code: 1, stdout: out.stdout, stderr: `${out.stderr}${(error as Error).stack ?? error}\n` };
  } finally {
    for (const [name, value] of Object.entries(saved.env)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    Object.assign(console, saved.console);
    process.exit = saved.exit;
    process.stdout.write = saved.stdout;
    process.stderr.write = saved.stderr;
  }
}
