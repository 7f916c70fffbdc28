import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { killGroup, spawnChild } from './children.js';
import { TEST_SECRET } from './test-api.js';
import { scaled } from './time-scale.js';

const BIN = fileURLToPath(new URL('../../bin/storefront.js', import.meta.url));

/**
 * `storefront serve` or `storefront worker` as a real child process, with its output kept for
 * assertions. Each process gets its own PostgreSQL `application_name` (PGAPPNAME), so a test can
 * find and terminate exactly its own connections and never another suite's.
 */
export class ServiceProcess {
  readonly child: ChildProcess;
  /** Everything the process wrote, stdout and stderr. */
  output = '';
  /** Set once the process has exited (a crash shows here). */
  exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  /** Resolves once the process has exited (`exit` then says how). */
  readonly exited: Promise<void>;
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly command: 'serve' | 'worker',
    readonly appName: string,
    env: Record<string, string>,
  ) {
    this.child = spawnChild(process.execPath, [BIN, command], {
      env: {
        PATH: process.env.PATH,
        STOREFRONT_SECRET: TEST_SECRET,
        PORT: '0',
        LOG_LEVEL: 'info',
        PGAPPNAME: appName,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (chunk: Buffer) => {
      this.output += chunk.toString();
      for (const waiter of this.waiters) waiter();
    };
    this.child.stdout!.on('data', collect);
    this.child.stderr!.on('data', collect);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        for (const waiter of this.waiters) waiter();
        resolve();
      }),
    );
  }

  get alive(): boolean {
    return this.exit === null;
  }

  /** Resolves with the first match of `pattern` in the output; rejects if the process exits first. */
  waitFor(pattern: RegExp, timeoutMs = scaled(30_000)): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(this.output);
        if (match) return done(() => resolve(match));
        if (this.exit) {
          done(() =>
            reject(new Error(`${this.appName} exited (${JSON.stringify(this.exit)}):\n${this.output}`)),
          );
        }
      };
      const timer = setTimeout(
        () =>
          done(() =>
            reject(new Error(`${this.appName}: no ${pattern} within ${timeoutMs} ms:\n${this.output}`)),
          ),
        timeoutMs,
      );
      const done = (settle: () => void) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        settle();
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Lines of the JSON log whose `msg` is exactly `message`. */
  logLines(message: string): Array<Record<string, unknown>> {
    return this.output
      .split('\n')
      .slice(0, -1) // the last piece is an unfinished line (or empty)
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.msg === message);
  }

  /** Signals the process (SIGKILL: its whole process group) and waits for its exit. */
  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (this.exit) return;
    if (signal === 'SIGKILL') killGroup(this.child.pid!);
    else this.child.kill(signal);
    await this.exited;
  }
}

/** Generous: on a busy 2-core machine a start has taken close to 20 s. */
const START_TIMEOUT_MS = scaled(60_000);

/** What `serve` prints once started: listening, migrated, and the Demo store made on an empty database. */
const STARTED = /Storefront API at (http:\/\/[\d.:]+)\/api\/public\/v1/;

/** A `serve` process and its base URL once it has started. */
export async function startServe(
  appName: string,
  env: Record<string, string>,
): Promise<{ process: ServiceProcess; url: string }> {
  const serve = new ServiceProcess('serve', appName, env);
  const [, url] = await serve.waitFor(STARTED, START_TIMEOUT_MS).catch(killed(serve));
  return { process: serve, url: url! };
}

/** A `storefront worker` process, once it has started its delivery loop. */
export async function startWorker(appName: string, env: Record<string, string>): Promise<ServiceProcess> {
  const worker = new ServiceProcess('worker', appName, env);
  await worker.waitFor(/webhook worker started/, START_TIMEOUT_MS).catch(killed(worker));
  return worker;
}

/** A process that did not start as expected is not left running. */
function killed(started: ServiceProcess): (error: unknown) => Promise<never> {
  return async (error) => {
    await started.kill('SIGKILL');
    throw error;
  };
}

export interface PlainResponse {
  status: number;
  headers: Headers;
  body: any;
}

/** One API call to a child process (`path` under /api/public/v1 unless it starts with `//`). */
export async function callApi(
  baseUrl: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<PlainResponse> {
  const url = path.startsWith('//') ? `${baseUrl}${path.slice(1)}` : `${baseUrl}/api/public/v1${path}`;
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, {
    method,
    headers,
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
    signal: AbortSignal.timeout(options.timeoutMs ?? scaled(30_000)),
  });
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: response.status, headers: response.headers, body };
}
