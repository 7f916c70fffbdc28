import { BLOCKED_ADDRESS_CODE } from './agent.js';

/** The limits a failed call ran under, so its description can name the one that ran out. */
export interface TransportTimeouts {
  connectTimeoutMs: number;
  requestTimeoutMs: number;
}

/** The transport error's code, or its cause's (undici wraps a refused connect). */
function codeOf(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const cause = error.cause instanceof Error ? (error.cause as NodeJS.ErrnoException).code : undefined;
  return (error as NodeJS.ErrnoException).code ?? cause;
}

/** The outbound address policy refused the connection (a private, loopback or link-local address). */
export const isBlockedAddress = (error: unknown): boolean => codeOf(error) === BLOCKED_ADDRESS_CODE;

/**
 * What went wrong with a call that got no answer, for an operator's message: which timeout ran out,
 * or the error's code and message with its cause. The caller scrubs any secret from it.
 */
export function describeTransportFailure(error: unknown, timeouts: TransportTimeouts): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError' || error.name === 'AbortError') {
    return `no answer within ${timeouts.requestTimeoutMs} ms`;
  }
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return `no connection within ${timeouts.connectTimeoutMs} ms`;
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${code ?? error.name}: ${error.message}${cause}`;
}
