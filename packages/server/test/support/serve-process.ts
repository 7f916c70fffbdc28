import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/storefront.js', import.meta.url));

/** One JSON log line of the service (pino: `pid`, `msg`, and the line's own fields). */
export type LogLine = Record<string, unknown> & { pid: number; msg: string };

/**
 * `storefront serve` as a real child process (the built CLI), with its stdout read line by line:
 * JSON log lines are parsed, anything else (the Demo key banner) is kept as text.
 */
export interface ServeProcess {
  child: ChildProcess;
  logs: LogLine[];
  /** Everything printed on stdout so far. */
  stdout(): string;
  /** Everything printed on stderr so far (a crash's stack trace). */
  stderr(): string;
  /** Resolves once `count` log lines (already seen or still to come) match; rejects after `timeoutMs`. */
  waitForLogs(
    match: (line: LogLine) => boolean,
    count: number,
    what: string,
    timeoutMs?: number,
  ): Promise<LogLine[]>;
  /** The exit code (null when ended by a signal). */
  exited: Promise<number | null>;
}

export function startServe(env: Record<string, string>): ServeProcess {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogLine[] = [];
  const waiters = new Set<() => void>();
  let text = '';
  let errors = '';
  let partial = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (line.startsWith('{')) logs.push(JSON.parse(line) as LogLine);
    }
    for (const wake of waiters) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  return {
    child,
    logs,
    stdout: () => text,
    stderr: () => errors,
    exited,
    waitForLogs(match, count, what, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = logs.filter(match);
          if (found.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `fewer than ${count} log lines "${what}" within ${timeoutMs} ms; stdout:\n${text}\nstderr:\n${errors}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

export interface PlainResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/**
 * One request on a connection of its own (no keep-alive): node:cluster hands out connections, not
 * requests, so this is what spreads requests over the HTTP processes.
 */
export function requestOnNewConnection(
  url: string,
  options: { method?: string; key?: string; body?: unknown } = {},
): Promise<PlainResponse> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        agent: false,
        headers: {
          ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text.startsWith('{') ? JSON.parse(text) : text,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
