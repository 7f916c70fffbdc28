import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query, as received. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** performance.now() when the request arrived. */
  at: number;
}

export interface StubReply {
  status: number;
  headers?: Record<string, string>;
  /** Sent as JSON unless it is a string. */
  body?: unknown;
}

/** `hang` never answers; `drop` closes the connection without an answer; `stall` sends headers only. */
export type StubAction = StubReply | 'hang' | 'drop' | 'stall';

export type StubHandler = (request: RecordedRequest, index: number) => StubAction | Promise<StubAction>;

export interface Stub {
  /** Service root to give the client as `baseUrl`. */
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** A local HTTP server on 127.0.0.1 that records every request and answers through `handler`. */
export async function startStub(handler: StubHandler): Promise<Stub> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      };
      requests.push(recorded);
      void Promise.resolve(handler(recorded, requests.length - 1)).then((action) => reply(res, action));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        // Hanging requests keep sockets open; close them so the server can stop.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers with the replies in order, repeating the last one. */
export function sequence(...actions: StubAction[]): StubHandler {
  return (_request, index) => actions[Math.min(index, actions.length - 1)] as StubAction;
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): StubReply {
  return { status, body, headers };
}

/** The documented error body. */
export function apiError(status: number, code: string, message: string, extra: Record<string, unknown> = {}) {
  return json(status, { error: { code, message, param: null, request_id: 'req_body123', ...extra } });
}

/** A base URL on which nothing listens, so connecting is refused. */
export async function closedPortUrl(): Promise<string> {
  const stub = await startStub(() => json(200, {}));
  await stub.close();
  return stub.baseUrl;
}

function reply(res: ServerResponse, action: StubAction): void {
  if (action === 'hang') return;
  if (action === 'drop') {
    res.socket?.destroy();
    return;
  }
  if (action === 'stall') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write('{"partial":');
    return;
  }
  const isText = typeof action.body === 'string';
  const payload =
    action.body === undefined ? '' : isText ? (action.body as string) : JSON.stringify(action.body);
  res.writeHead(action.status, {
    'Content-Type': isText ? 'text/html' : 'application/json',
    'Request-Id': 'req_header456',
    ...action.headers,
  });
  res.end(payload);
}
