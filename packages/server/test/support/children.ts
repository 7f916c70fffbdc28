import { spawn } from 'node:child_process';
import type {
  ChildProcess,
  ChildProcessWithoutNullStreams,
  SpawnOptions,
  SpawnOptionsWithoutStdio,
} from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every process a test starts (`storefront serve`, `worker`, `npm start`) is spawned here: in a process
 * group of its own, so killing the group takes its children too, and registered in the run's directory
 * (STOREFRONT_TEST_CHILDREN_DIR, made by global-setup.ts), one file per live child, so the run's
 * teardown can kill and report any child a failed or timed-out test left behind. A test process that
 * exits kills the groups it started itself.
 */
const started = new Set<ChildProcess>();
const registry = process.env.STOREFRONT_TEST_CHILDREN_DIR;

export function spawnChild(
  command: string,
  args: string[],
  options: SpawnOptionsWithoutStdio,
): ChildProcessWithoutNullStreams;
export function spawnChild(command: string, args: string[], options: SpawnOptions): ChildProcess;
export function spawnChild(command: string, args: string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true });
  const pid = child.pid;
  if (pid === undefined) return child; // spawn failed: the 'error' event says why
  started.add(child);
  const file = registry && join(registry, String(pid));
  if (file) writeFileSync(file, `${[command, ...args].join(' ')}\n`);
  child.once('exit', () => {
    started.delete(child);
    if (file) rmSync(file, { force: true });
  });
  return child;
}

/** Kills `pid`'s process group (the child and whatever it started); false if it was already gone. */
export function killGroup(pid: number, signal: NodeJS.Signals = 'SIGKILL'): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

process.once('exit', () => {
  for (const child of started) killGroup(child.pid!);
});

/** The children still registered in `dir` that are alive, with their command lines; each is killed. */
export function killLeftBehind(dir: string): string[] {
  const left: string[] = [];
  for (const name of readdirSync(dir)) {
    const pid = Number(name);
    if (killGroup(pid)) left.push(`${pid}: ${readFileSync(join(dir, name), 'utf8').trim()}`);
  }
  return left;
}
