// Starts a Node process that serves HTTP, waits until it answers, and stops it with SIGTERM.
import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { clearTimeout, setTimeout } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';

async function waitUntilAnswering(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited with code ${child.exitCode} while starting`);
    try {
      const res = await globalThis.fetch(url);
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await sleep(50);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/**
 * `node [nodeArgs] script [args]` with `env`; its output goes to `logFile`. Resolves once
 * `readyUrl` answers 2xx. `stop()` sends SIGTERM and waits for the exit (a CPU profile is written then).
 */
export async function startNodeProcess({ script, args = [], nodeArgs = [], env, logFile, readyUrl }) {
  const fd = openSync(logFile, 'a');
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
    env,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  try {
    await waitUntilAnswering(readyUrl, child, 30_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${script}: ${error.message} (see ${logFile})`);
  }
  return {
    pid: child.pid,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

/** The next IPC message from a forked child (its ready signal, or the answer to a question). */
export function nextMessage(child) {
  return new Promise((resolve) => child.once('message', resolve));
}
