import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the thread copies the WAL back: ~3,400 WAL pages apart at ~300 purchases a second. */
export const BACKGROUND_CHECKPOINT_MS = 200;

/** What the background checkpoints report, at most once per failure kind. */
export interface CheckpointLog {
  warn(object: object, message: string): void;
}

export interface BackgroundCheckpoints {
  /** Ends the thread and closes its connection (before the service's own, which checkpoints last). */
  stop(): Promise<void>;
}

/*
 * The thread, as a CommonJS script run with `eval` (the same text from the compiled service and from
 * the tests, which run the TypeScript sources): a connection of its own, a PASSIVE checkpoint each
 * interval in which something was committed. PASSIVE never waits for or blocks the service's writer
 * or readers; SQLITE_BUSY (another process checkpointing) is simply the next interval's work.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
const checkpoint = db.prepare('pragma wal_checkpoint(PASSIVE)').raw();
const dataVersion = db.prepare('pragma data_version').pluck();
let copiedAt = null;
let reported = false;
const timer = setInterval(() => {
  try {
    // data_version moves when another connection commits: an idle service costs one read, not a checkpoint.
    const version = dataVersion.get();
    if (version === copiedAt) return;
    // [busy, frames in the WAL, frames copied]: done only when all were (a reader may hold some back).
    const [, frames, copied] = checkpoint.get();
    if (frames === copied) copiedAt = version;
    reported = false;
  } catch (error) {
    if (error.code === 'SQLITE_BUSY' || reported) return;
    reported = true;
    parentPort.postMessage({ failed: error.message, code: error.code });
  }
}, workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Copies the WAL back into the database file from a worker thread, so the service's event loop never
 * waits on a checkpoint: inline, the commit that crossed the threshold did the copy, 5-20 ms during
 * which no request was answered. The CPU is the same (it is this process's, on another core when
 * there is one). The service's own connection keeps its `wal_autocheckpoint` as a backstop, should
 * this thread fall behind or stop.
 */
export function startBackgroundCheckpoints(
  path: string,
  log: CheckpointLog,
  /** The thread ended on its own: the commits must copy the WAL back at their usual pace again. */
  onStopped: () => void,
): BackgroundCheckpoints {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(THREAD, {
    eval: true,
    workerData: { path, driver, intervalMs: BACKGROUND_CHECKPOINT_MS },
    // The thread's JavaScript is a timer and a pragma: small heaps (a 1 MB young one fails to start).
    resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 },
  });
  worker.unref();
  worker.on('message', (failure: { failed: string; code?: string }) =>
    log.warn(
      { error: failure.failed, code: failure.code },
      'background WAL checkpoint failed; commits copy the WAL back themselves until it succeeds',
    ),
  );
  worker.on('error', (error) =>
    log.warn(
      { error: error.message },
      'background WAL checkpoints stopped; commits copy the WAL back themselves',
    ),
  );
  let stopping = false;
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      if (!stopping) onStopped();
      resolve();
    }),
  );
  return {
    async stop() {
      stopping = true;
      // Unreferenced, the thread would not keep the process alive for this wait: a process with
      // nothing else left would end with the wait unsettled (exit code 13) instead of its own code.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
