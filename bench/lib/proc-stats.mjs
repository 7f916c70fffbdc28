// Memory of another process, read from /proc (Linux): current RSS, peak RSS, and a peak reset.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';

function statusField(pid, field) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : null;
}

export const rssBytes = (pid) => statusField(pid, 'VmRSS');
export const peakRssBytes = (pid) => statusField(pid, 'VmHWM');

/** Resets VmHWM to the current RSS (Linux 4.0+), so each scenario reports its own peak. */
export function resetPeakRss(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export const toMb = (bytes) => (bytes === null ? null : Math.round((bytes / 1024 / 1024) * 10) / 10);

/** Busy and total CPU ticks of the whole machine, from the first line of /proc/stat. */
function machineTicks() {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fields.map(Number);
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, total: busy + idle + iowait };
}

/** utime + stime of a process (all its threads), in the same clock ticks. */
export function processTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/**
 * Nanoseconds a process has run on a CPU, its threads summed: the scheduler's own count
 * (/proc/<pid>/task/<tid>/schedstat), exact where utime + stime come in 10 ms ticks. A round of
 * baseline purchases costs a few ticks, so a tick more or less moved its figure by a quarter.
 * Falls back to the ticks where schedstat is missing (a kernel without CONFIG_SCHEDSTATS).
 */
export function processCpuNs(pid) {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`))
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ', 1)[0]);
    return ns;
  } catch {
    return processTicks(pid) * 10_000_000;
  }
}

/**
 * Starts watching the CPU; the returned function gives, since then: the CPU seconds `target` used,
 * and the share of the machine's CPU (percent) spent by processes other than `own` (the target and
 * the bench itself). Other engineers' builds and tests on a shared machine show up in that share,
 * and so do PostgreSQL's own processes.
 */
export function watchCpu(target, own) {
  const ownAt = () => own.reduce((sum, pid) => sum + processTicks(pid), 0);
  const start = machineTicks();
  const ownStart = ownAt();
  const targetStart = processCpuNs(target);
  return () => {
    const end = machineTicks();
    const total = end.total - start.total;
    const other = end.busy - start.busy - (ownAt() - ownStart);
    return {
      cpuSeconds: (processCpuNs(target) - targetStart) / 1e9,
      otherCpuPct: total > 0 ? Math.max(0, Math.round((other / total) * 100)) : null,
    };
  };
}
