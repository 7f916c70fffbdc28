import { simpleParser } from 'mailparser';
import type { ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { SMTPServerError } from 'smtp-server';
import { loadConfig } from '../../src/platform/config/config.js';
import type { SmtpSettings } from '../../src/platform/config/config.js';
import { certificateFor } from './https-receiver.js';
import { scaled } from './time-scale.js';

/**
 * A real SMTP server for tests (the `smtp-server` library): STARTTLS offered on smtp://, or TLS from
 * the first byte with `secure: true` (smtps://), a self-signed certificate, and AUTH PLAIN/LOGIN
 * allowed only once the connection is encrypted. Accepted messages are parsed with mailparser.
 *
 *   const server = await startSmtpServer();
 *   server.refuseNext({ at: 'data', code: 451, message: 'Try again later' });
 *   ... send with `server.settings()`, trusting `server.ca` ...
 *   const [mail] = await server.waitForMessages(1);
 */

export const SMTP_USER = 'loja';
export const SMTP_PASS = 'p@ss:word';

export interface ReceivedMail {
  parsed: ParsedMail;
  /** RCPT TO addresses. */
  to: string[];
  /** Whether the conversation was encrypted (STARTTLS or smtps) when the message arrived. */
  secure: boolean;
  /** The authenticated user. */
  user: string | undefined;
}

export interface Refusal {
  at: 'rcpt' | 'data';
  code: number;
  message: string;
}

export interface TestSmtpServer {
  host: string;
  port: number;
  ca: string;
  /** Messages accepted so far, in order. */
  messages: ReceivedMail[];
  /** Replies refused so far (refuseNext), in order. */
  refusals: Refusal[];
  /** Refuses the next messages, one refusal each, in order; then accepts again. */
  refuseNext(...refusals: Refusal[]): void;
  /** Its SMTP_URL, credentials percent-encoded: `smtp://loja:p%40ss%3Aword@127.0.0.1:<port>`. */
  url: string;
  /** What the configuration makes of `url` and a STOREFRONT_MAIL_FROM. */
  settings(from?: string): SmtpSettings;
  waitForMessages(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startSmtpServer(
  options: { secure?: boolean; port?: number } = {},
): Promise<TestSmtpServer> {
  const { key, cert } = certificateFor('127.0.0.1');
  const messages: ReceivedMail[] = [];
  const refusals: Refusal[] = [];
  const queue: Refusal[] = [];
  const waiters = new Set<() => void>();
  const secure = options.secure ?? false;

  const refusal = (at: Refusal['at']): SMTPServerError | null => {
    if (queue[0]?.at !== at) return null;
    const next = queue.shift()!;
    refusals.push(next);
    return Object.assign(new Error(next.message), { responseCode: next.code });
  };

  const server = new SMTPServer({
    secure,
    key,
    cert,
    logger: false,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASS) callback(null, { user: SMTP_USER });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(_address, _session, callback) {
      callback(refusal('rcpt'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const refused = refusal('data');
        if (refused) return callback(refused);
        simpleParser(Buffer.concat(chunks)).then((parsed) => {
          messages.push({
            parsed,
            to: session.envelope.rcptTo.map((r) => r.address),
            secure: session.secure,
            user: session.user as string | undefined,
          });
          waiters.forEach((wake) => wake());
          callback();
        }, callback);
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  if (typeof address !== 'object' || !address) throw new Error('SMTP server not listening');
  const port = address.port;
  const url = `${secure ? 'smtps' : 'smtp'}://${SMTP_USER}:${encodeURIComponent(SMTP_PASS)}@127.0.0.1:${port}`;

  return {
    host: '127.0.0.1',
    port,
    ca: cert,
    messages,
    refusals,
    refuseNext(...next) {
      queue.push(...next);
    },
    url,
    settings(from = 'Loja Teste <vendas@loja.example.com>') {
      const env = { STOREFRONT_SECRET: 'x'.repeat(32), SMTP_URL: url, STOREFRONT_MAIL_FROM: from };
      return loadConfig(env).smtp!;
    },
    waitForMessages(count, timeoutMs = scaled(15_000)) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (messages.length < count) return;
          cleanup();
          resolve(messages.slice(0, count));
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`expected ${count} messages, got ${messages.length} within ${timeoutMs} ms`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close() {
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
