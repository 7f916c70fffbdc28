import { pino } from 'pino';
import type { Logger } from 'pino';

/** A batch of log lines is written once it holds this many bytes… */
const BATCH_BYTES = 4096;
/** …or once this long has passed, whichever comes first; and whatever is left as the process exits. */
const BATCH_MS = 200;

type Destination = ReturnType<typeof pino.destination>;

let destination: Destination | null = null;

/**
 * Where this process's log lines go: stdout, in batches. Written line by line, every request's access
 * line was its own write, and a GET /healthz at 4 in flight cost ~2.1x what bare Fastify spends on
 * it, against ~1.4-1.6x batched (docs/operations.md, "What the logs keep"). One destination for
 * the whole process, so the service's lines and the requests' lines keep their order. A process
 * killed outright (SIGKILL, the OOM killer) can lose its last 200 ms of lines; an exit, a thrown
 * error or a signal the service handles writes them first.
 */
export function processLogDestination(): Destination {
  destination ??= pino.destination({ dest: 1, sync: false, minLength: BATCH_BYTES, periodicFlush: BATCH_MS });
  return destination;
}

/**
 * The log of `serve`, `worker` and the cluster's primary, on `processLogDestination`. Its lines are
 * few (a start, a warning, a worker's round) and someone may be waiting on one ("listening",
 * "creating a new database"), so each is written at once, with any access lines batched before it.
 */
export function openProcessLog(level: string): Logger {
  const lines = processLogDestination();
  return pino(
    {
      level,
      hooks: {
        logMethod(args, write) {
          write.apply(this, args);
          lines.flush();
        },
      },
    },
    lines,
  );
}
