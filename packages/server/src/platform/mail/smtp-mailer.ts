import type { ConnectionOptions } from 'node:tls';
import nodemailer from 'nodemailer';
import type { SmtpSettings } from '../config/config.js';

export interface ComposedEmail {
  subject: string;
  text: string;
  html: string;
}

export interface OutgoingEmail extends ComposedEmail {
  to: { name: string; address: string };
  /** `<sale-<id>@<domain>>`: the same on every send, so a resend is recognisable. */
  messageId: string;
}

export type SendOutcome = { ok: true } | { ok: false; permanent: boolean; error: string };

export interface MailerOptions {
  /** Extra TLS trust (a test server's certificate); NODE_EXTRA_CA_CERTS works too. */
  tls?: Pick<ConnectionOptions, 'ca'>;
  /** Connections kept open to the server at once. */
  maxConnections?: number;
  /** Connect and greeting timeout; a stalled conversation gets three times as long. */
  timeoutMs?: number;
}

export interface Mailer {
  send(email: OutgoingEmail): Promise<SendOutcome>;
  close(): void;
}

/** The longest a server's reply may run in `last_error`. */
const MAX_REPLY_LENGTH = 300;

/**
 * A pooled SMTP transport. smtp:// upgrades with STARTTLS whenever the server offers it (nodemailer's
 * default), smtps:// is TLS from the first byte, and certificates are always verified. nodemailer's
 * own requeueing is off: a retry is the worker's decision, on its schedule.
 */
export function createMailer(smtp: SmtpSettings, options: MailerOptions = {}): Mailer {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const transport = nodemailer.createTransport({
    pool: true,
    maxConnections: options.maxConnections ?? 4,
    maxRequeues: 0,
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    ...(smtp.auth ? { auth: smtp.auth } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs * 3,
    dnsTimeout: timeoutMs,
    tls: { rejectUnauthorized: true, ...options.tls },
  });
  const where = `${smtp.host}:${smtp.port}`;
  return {
    async send(email) {
      try {
        await transport.sendMail({
          from: smtp.from,
          to: email.to,
          subject: email.subject,
          text: email.text,
          html: email.html,
          messageId: email.messageId,
        });
        return { ok: true };
      } catch (error) {
        return describeFailure(error as SmtpError, where);
      }
    },
    close() {
      transport.close();
    },
  };
}

interface SmtpError extends Error {
  code?: string;
  originalCode?: string;
  responseCode?: number;
  response?: string;
}

/**
 * A 5xx reply is permanent (it would be refused again); everything else, 4xx replies, refused
 * connections, timeouts, TLS and DNS trouble, is worth another try. The words are for a merchant
 * reading the sale, not for a developer reading a stack.
 */
function describeFailure(error: SmtpError, where: string): { ok: false; permanent: boolean; error: string } {
  const reply = error.response ? clip(error.response.trim()) : null;
  const status = error.responseCode ?? 0;
  if (status >= 500) {
    const what =
      error.code === 'EAUTH'
        ? 'The mail server did not accept the SMTP user name or password'
        : 'The mail server refused the message permanently';
    return { ok: false, permanent: true, error: `${what}: ${reply}.` };
  }
  if (status >= 400) {
    return { ok: false, permanent: false, error: `The mail server asked to try again later: ${reply}.` };
  }
  return { ok: false, permanent: false, error: transportProblem(error, where) };
}

function transportProblem(error: SmtpError, where: string): string {
  const cause = error.originalCode ?? error.code;
  switch (cause) {
    case 'ECONNREFUSED':
      return `Could not connect to the mail server at ${where}: the connection was refused.`;
    case 'ETIMEDOUT':
      return `The mail server at ${where} did not answer in time.`;
    case 'EDNS':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `The mail server's name could not be resolved (${where}).`;
    case 'ETLS':
      return `A secure (TLS) connection to the mail server at ${where} failed: ${clip(error.message)}.`;
    default:
      return `Sending through the mail server at ${where} failed: ${clip(error.message)}.`;
  }
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > MAX_REPLY_LENGTH ? `${line.slice(0, MAX_REPLY_LENGTH)}…` : line;
}
