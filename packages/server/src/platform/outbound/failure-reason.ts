/**
 * Why an attempt failed, as the delivery history shows it to the merchant: short, actionable, and
 * safe to show (no internal address, no stack, no text from the receiver). The server log keeps
 * the full transport error for operators.
 */

export interface AttemptResult {
  ok: boolean;
  status: number | null;
  /** 'timeout', 'aborted', 'unsignable' or the transport error's code (ECONNREFUSED, CERT_HAS_EXPIRED, …). */
  code?: string;
}

const BY_CODE: Record<string, string> = {
  ECONNREFUSED: 'connection refused: nothing accepts connections at that address and port',
  ECONNRESET: 'the endpoint closed the connection before answering',
  UND_ERR_SOCKET: 'the endpoint closed the connection before answering',
  EPIPE: 'the endpoint closed the connection before answering',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved (DNS failure); will retry',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the host is unreachable',
  EBLOCKEDADDRESS:
    'refused: the host resolves to an address that is not public (private, loopback or reserved)',
  aborted: 'interrupted: the service stopped during the attempt; will retry',
  unsignable: 'not sent: the endpoint secret cannot be opened (the service secret changed)',
};

const TLS_CODE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|HANDSHAKE/;
const SAFE_CODE = /^[A-Z][A-Z0-9_]{1,40}$/;

export function failureReason(result: AttemptResult, timeoutMs: number): string | null {
  if (result.ok) return null;
  const { status, code } = result;
  if (code === 'timeout') {
    return status === null
      ? `no answer within ${timeoutMs} ms`
      : `answered ${status} but the body did not arrive within ${timeoutMs} ms`;
  }
  if (status !== null && code === undefined) {
    if (status >= 300 && status < 400)
      return `answered ${status}: redirects are not followed; use the final URL`;
    return `answered ${status}; only a 2xx counts as delivered`;
  }
  if (code === undefined) return 'failed before any answer';
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return `could not connect within ${timeoutMs} ms`;
  const known = BY_CODE[code];
  if (known) return known;
  if (TLS_CODE.test(code))
    return `TLS error: ${code} (the certificate must be valid for the host and trusted)`;
  return SAFE_CODE.test(code) ? `network error (${code})` : 'network error';
}
