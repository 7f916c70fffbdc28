// What a run of purchases cost, read from outside the server: CPU ticks of its processes and of
// PostgreSQL's, its own statement counter (GET /metrics), and a wait until the inline worker has
// done what the purchases left it (outbox, webhook, e-mail and conversion queues) and gone idle.
import { readFileSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { withPgClient } from './database.mjs';
import { importServerDependency, importServerModule } from './paths.mjs';
import { processTicks } from './proc-stats.mjs';

/** USER_HZ: the unit of /proc/<pid>/stat. */
export const TICKS_PER_SECOND = 100;

export const ticksOf = (pids) => pids.reduce((sum, pid) => sum + processTicks(pid), 0);

/** Every process on this machine whose command is `name` (as /proc/<pid>/comm has it). */
export function processesNamed(name) {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** PostgreSQL's processes on this machine: the postmaster, every backend, its helpers. */
export const postgresPids = () => processesNamed('postgres');

/**
 * Starts counting the CPU of the processes `list()` names (read again at the end: a backend may
 * start during the run, and then all its ticks are the run's); the returned function gives the ticks.
 */
export async function watchPids(list) {
  const start = new Map((await list()).map((pid) => [pid, processTicks(pid)]));
  return async () => {
    let ticks = 0;
    for (const pid of new Set([...start.keys(), ...(await list())])) {
      const now = processTicks(pid); // 0 for a process gone meanwhile: its last ticks are lost
      ticks += Math.max(0, now - (start.get(pid) ?? 0));
    }
    return ticks;
  };
}

/** The backends serving connections named `appName` (the server's, through PGAPPNAME). */
export const pgBackendPids = (pgUrl, appName) =>
  withPgClient(pgUrl, async (client) => {
    const { rows } = await client.query('select pid from pg_stat_activity where application_name = $1', [
      appName,
    ]);
    return rows.map((row) => row.pid);
  });

/** A counter's value (summed over its series) from the server's Prometheus text. */
export async function readCounter(origin, token, name) {
  const res = await globalThis.fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET /metrics answered ${res.status}`);
  let total = 0;
  for (const line of (await res.text()).split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) total += Number(line.split(' ').pop());
  }
  return total;
}

/**
 * What the worker still has to do, in the bench's own connection to the database: events not yet
 * handed to the webhook queue, webhook jobs, e-mail jobs, conversion events not yet sent.
 */
export async function openBacklog(database) {
  const { openDatabase } = await importServerModule('platform/db/database.js');
  const { sql } = await importServerDependency('kysely');
  const db = openDatabase(database.databaseUrl, { ...database.openOptions, poolSize: 1 });
  const count = async (query) => Number((await sql.raw(query).execute(db.kysely)).rows[0].n);
  return {
    async pending() {
      return (
        (await count('select count(*) as n from events where dispatched_at is null')) +
        (await count('select count(*) as n from webhook_jobs')) +
        (await count('select count(*) as n from email_jobs')) +
        (await count("select count(*) as n from conversion_events where status = 'pending'"))
      );
    },
    close: () => db.close(),
  };
}

/**
 * Waits until the backlog is empty and then until `pids` used no CPU for `idleMs` (the worker's
 * last claims, log writes, a GC after the burst), at most `maxMs` in all. Returns the milliseconds.
 */
export async function waitUntilDrained({ backlog, pids, idleMs = 300, maxMs = 15_000 }) {
  const started = Date.now();
  while ((await backlog.pending()) > 0) {
    if (Date.now() - started > maxMs) throw new Error(`the worker's backlog did not drain in ${maxMs} ms`);
    await sleep(50);
  }
  let last = ticksOf(pids);
  let quietSince = Date.now();
  while (Date.now() - quietSince < idleMs && Date.now() - started < maxMs) {
    await sleep(50);
    const now = ticksOf(pids);
    if (now !== last) quietSince = Date.now();
    last = now;
  }
  return Date.now() - started;
}

/**
 * Samples, every `intervalMs` until stopped, what the backends of `appName` that are running a
 * statement wait on (pg_stat_activity: a lock, WAL I/O, or nothing, i.e. on the CPU). The returned
 * function stops it and gives each wait's share of those samples, largest first, e.g.
 * `cpu 61%, Lock:transactionid 22%, IO:WALSync 9%`.
 */
export async function samplePgWaits(pgUrl, appName, intervalMs = 50) {
  const pg = await importServerDependency('pg');
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  const counts = new Map();
  let total = 0;
  let running = true;
  const sampling = (async () => {
    while (running) {
      const { rows } = await client.query(
        `select coalesce(wait_event_type || ':' || wait_event, 'cpu') as wait from pg_stat_activity
          where application_name = $1 and state = 'active'`,
        [appName],
      );
      for (const { wait } of rows) counts.set(wait, (counts.get(wait) ?? 0) + 1);
      total += rows.length;
      await sleep(intervalMs);
    }
  })();
  return async () => {
    running = false;
    await sampling;
    await client.end();
    return [...counts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([wait, n]) => `${wait} ${Math.round((n / Math.max(1, total)) * 100)}%`)
      .join(', ');
  };
}
