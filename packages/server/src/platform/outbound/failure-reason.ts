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

/**
 * The reasons above as a Portuguese page shows them. A delivery keeps its reason in English (the API
 * returns it as written); the dashboard words the same sentences for the store's team.
 */
const IN_PORTUGUESE: [RegExp, (...groups: string[]) => string][] = [
  [/^no answer within (\d+) ms$/, (ms) => `sem resposta em ${ms} ms`],
  [
    /^answered (\d+) but the body did not arrive within (\d+) ms$/,
    (status, ms) => `respondeu ${status}, mas o corpo não chegou em ${ms} ms`,
  ],
  [
    /^answered (\d+): redirects are not followed; use the final URL$/,
    (status) => `respondeu ${status}: redirecionamentos não são seguidos; use o endereço final`,
  ],
  [
    /^answered (\d+); only a 2xx counts as delivered$/,
    (status) => `respondeu ${status}; só uma resposta 2xx conta como entregue`,
  ],
  [/^failed before any answer$/, () => 'falhou antes de qualquer resposta'],
  [/^could not connect within (\d+) ms$/, (ms) => `não conectou em ${ms} ms`],
  [/^connection refused: /, () => 'conexão recusada: nada aceita conexões nesse endereço e porta'],
  [/^the endpoint closed the connection/, () => 'o endpoint fechou a conexão antes de responder'],
  [/^the host name does not resolve$/, () => 'o nome do servidor não existe no DNS'],
  [/^the host name could not be resolved/, () => 'falha de DNS ao procurar o servidor; nova tentativa virá'],
  [/^the host is unreachable$/, () => 'o servidor está inalcançável'],
  [
    /^refused: the host resolves to an address that is not public/,
    () => 'recusado: o servidor aponta para um endereço que não é público (privado, local ou reservado)',
  ],
  [/^interrupted: /, () => 'interrompido: o serviço parou durante a tentativa; nova tentativa virá'],
  [
    /^not sent: the endpoint secret cannot be opened/,
    () => 'não enviado: o segredo do endpoint não pode ser aberto (o segredo do serviço mudou)',
  ],
  [
    /^TLS error: (\S+) /,
    (code) => `erro de TLS: ${code} (o certificado precisa ser válido para o servidor e confiável)`,
  ],
  [/^network error \((\S+)\)$/, (code) => `erro de rede (${code})`],
  [/^network error$/, () => 'erro de rede'],
];

export function failureReasonInPortuguese(reason: string): string {
  for (const [pattern, words] of IN_PORTUGUESE) {
    const match = pattern.exec(reason);
    if (match) return words(...match.slice(1));
  }
  return reason;
}
