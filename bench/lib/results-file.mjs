// A JSON record of the run under bench/results/, named by time and mode, so runs can be compared.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, release } from 'node:os';
import { join } from 'node:path';
import { repoDir, resultsDir } from './paths.mjs';

const git = (...args) => execFileSync('git', args, { cwd: repoDir, encoding: 'utf8' }).trim();

/** The commit measured, and whether the server's sources differed from it (a shared working tree). */
function gitState() {
  try {
    return {
      commit: git('rev-parse', '--short', 'HEAD'),
      serverSourcesModified: git('status', '--porcelain', '--', 'packages/server/src') !== '',
    };
  } catch {
    return { commit: null, serverSourcesModified: null };
  }
}

export function machineInfo() {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model ?? null,
    memoryGb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    platform: `${process.platform} ${release()}`,
    node: process.version,
  };
}

export function saveResults(record) {
  mkdirSync(resultsDir, { recursive: true });
  const stamp = record.startedAt.replace(/[:.]/g, '-');
  const file = join(resultsDir, `${stamp}-${record.mode}.json`);
  writeFileSync(file, JSON.stringify({ ...record, ...gitState() }, null, 2) + '\n');
  return file;
}
