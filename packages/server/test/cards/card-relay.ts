import { createServer } from 'node:http';
import type { IncomingMessage } from 'node:http';

/**
 * An address known before the service under test listens (its STOREFRONT_PUBLIC_URL, which the PSP
 * notification URL is built from), relaying every request to `target` once the service is up.
 */
export interface Relay {
  url: string;
  target: string;
  close(): Promise<void>;
}

function bodyOf(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startRelay(): Promise<Relay> {
  const relay: Relay = { url: '', target: '', close: async () => {} };
  const server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      const headers = Object.fromEntries(
        Object.entries(req.headers).flatMap(([name, value]) =>
          typeof value === 'string' && name !== 'host' && name !== 'content-length' ? [[name, value]] : [],
        ),
      );
      const answer = await fetch(`${relay.target}${req.url}`, {
        method: req.method!,
        headers,
        ...(body.length > 0 && { body: body.toString('utf8') }),
      });
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    })().catch(() => {
      res.writeHead(502).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('relay not listening');
  relay.url = `http://127.0.0.1:${address.port}`;
  relay.close = () => new Promise((resolve) => server.close(() => resolve()));
  return relay;
}
