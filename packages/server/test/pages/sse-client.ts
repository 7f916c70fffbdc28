import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { scaled } from '../support/time-scale.js';

export interface StreamEvent {
  event: string;
  data: any;
}

/** One `GET …/events` as a browser's EventSource would make it, read event by event. */
export interface OpenStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** Every event received so far, in order. */
  events: StreamEvent[];
  /** Everything received, as text (the JSON error of a refused stream). */
  text(): string;
  /** Resolves once the server ended the response. */
  ended: Promise<void>;
  /** Resolves with the first event (already received or yet to come) that `match` accepts. */
  next(match: (event: StreamEvent) => boolean, timeoutMs?: number): Promise<StreamEvent>;
  close(): void;
}

/**
 * Opens an order page's live-status stream from `localAddress` (any 127.x address reaches the service
 * on Linux: each stands for another client IP).
 */
export function openStream(baseUrl: string, token: string, localAddress = '127.0.0.1'): Promise<OpenStream> {
  const url = new URL(`/p/o/${token}/events`, baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        localAddress,
        agent: false,
        headers: { accept: 'text/event-stream' },
      },
      (res) => {
        res.setEncoding('utf8');
        let all = '';
        let pending = '';
        const events: StreamEvent[] = [];
        const waiters = new Set<() => void>();
        res.on('data', (chunk: string) => {
          all += chunk;
          pending += chunk;
          for (let end = pending.indexOf('\n\n'); end >= 0; end = pending.indexOf('\n\n')) {
            const block = pending.slice(0, end);
            pending = pending.slice(end + 2);
            const name = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (name !== undefined && data !== undefined)
              events.push({ event: name, data: JSON.parse(data) });
          }
          for (const waiter of waiters) waiter();
        });
        const ended = new Promise<void>((done) => {
          res.once('end', done);
          res.once('close', done);
        });
        resolve({
          status: res.statusCode!,
          headers: res.headers,
          events,
          text: () => all,
          ended,
          next(match, timeoutMs = scaled(10_000)) {
            return new Promise((found, fail) => {
              const check = () => {
                const event = events.find(match);
                if (!event) return false;
                waiters.delete(check);
                clearTimeout(timer);
                found(event);
                return true;
              };
              const timer = setTimeout(() => {
                waiters.delete(check);
                fail(new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(events)}`));
              }, timeoutMs);
              if (!check()) waiters.add(check);
            });
          },
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
