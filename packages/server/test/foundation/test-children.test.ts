import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { killGroup, killLeftBehind, spawnChild } from '../support/children.js';

/** Whether `pid` runs: a zombie (killed, not yet reaped by whoever adopted it) does not. */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = `/proc/${pid}/stat`;
  return !existsSync(stat) || !/^\d+ \(.*\) Z/.test(readFileSync(stat, 'utf8'));
};

/** The run's guard against processes left behind (global-setup.ts's teardown uses killLeftBehind). */
describe('test children: registered for the run, and killed with their own children when left behind', () => {
  it('a spawned child is registered while it lives, in a process group of its own', async () => {
    const registry = process.env.STOREFRONT_TEST_CHILDREN_DIR!;
    expect(registry).toBeTruthy();
    const child = spawnChild('sleep', ['60'], { stdio: 'ignore' });
    const file = join(registry, String(child.pid));
    expect(existsSync(file)).toBe(true);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    expect(killGroup(child.pid!)).toBe(true);
    await exited;
    expect(existsSync(file)).toBe(false);
  });

  it('killLeftBehind kills a registered group, grandchildren too, and names what it killed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-children-'));
    // A shell that starts a grandchild, as `npm start` starts node.
    const shell = spawn('sh', ['-c', 'sleep 60 & echo $!; wait'], { detached: true });
    const grandchild = await new Promise<number>((resolve) =>
      shell.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
    );
    writeFileSync(join(dir, String(shell.pid)), 'sh -c sleep 60\n');
    writeFileSync(join(dir, '999999999'), 'long gone\n');
    const exited = new Promise((resolve) => shell.once('exit', resolve));

    expect(killLeftBehind(dir)).toEqual([`${shell.pid}: sh -c sleep 60`]);
    await exited;
    expect(alive(shell.pid!)).toBe(false);
    await expect.poll(() => alive(grandchild)).toBe(false);
  });
});
