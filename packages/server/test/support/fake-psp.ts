import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { testPki } from './test-pki.js';
import { apiPixViolations } from './api-pix-schemas.js';
import { fakeRecResources } from './fake-psp-rec.js';
import type { FakeRecResources } from './fake-psp-rec.js';
import { Problem, alnum, cobInvalida, dynamicBrCode } from './fake-psp-wire.js';

/**
 * A fake PSP speaking the Banco Central's API Pix over real mTLS, for tests and benchmarks.
 *
 * - TLS: its server certificate and every accepted client certificate are signed by its own CA
 *   (`testPki()`); a client without a certificate of that CA is refused at the handshake.
 * - `POST /oauth/token`: client credentials, by default with HTTP Basic and a form body (`token` makes it
 *   require another shape: credentials in the body, JSON, scopes, extra parameters); tokens expire after `tokenTtlSeconds`
 *   (or at once with `expireTokens()`).
 * - Under `/v2`: `PUT|GET|PATCH /cob/{txid}`, `GET /cob?inicio&fim`, `PUT|GET /pix/{e2eid}/devolucao/{id}`,
 *   `PUT /webhook/{chave}`: bodies are checked against the standard's rules (a cob body also against
 *   its JSON schema) and answered in its shapes; errors are RFC 7807 problem+json with the standard's
 *   types.
 * - Pix Automático (`rec`: locrec, rec, cobr, retentativa, webhookrec, webhookcobr, and the payer's
 *   controls): see fake-psp-rec.ts.
 * - Control surface: `pay()` pays a cob and POSTs the callback to `<webhookUrl>/pix` (unless
 *   `dropCallbacks`), `settleRefund()`, `tamper()`, `failWith()` (500 or hang), `expireTokens()`, and
 *   `requests` (everything received).
 */

export interface FakePspOptions {
  clientId?: string;
  clientSecret?: string;
  /** The Pix key (chave) the merchant's account holds. */
  chave: string;
  tokenTtlSeconds?: number;
  /** How the token endpoint must be asked; anything else is refused. Default: Basic, form, no scope. */
  token?: FakeTokenEndpoint;
}

/** Real PSPs differ in their token request; this PSP can be made to require one shape. */
export interface FakeTokenEndpoint {
  /** `basic`: HTTP Basic and no credentials in the body. `body`: client_id (and client_secret) in the body, no Basic. */
  auth?: 'basic' | 'body';
  /** With `body`: false when the PSP knows the client by its certificate and takes no secret (Sicoob). */
  secret?: boolean;
  format?: 'form' | 'json';
  /** Scopes that must all be asked for. */
  scope?: string;
  /** Parameters that must be sent with these values. */
  params?: Record<string, string>;
}

export interface FakeCob {
  txid: string;
  revisao: number;
  status: 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';
  calendario: { criacao: string; expiracao: number };
  valor: { original: string };
  chave: string;
  devedor?: Record<string, string>;
  solicitacaoPagador?: string;
  location: string;
  pixCopiaECola: string;
  pix: FakePix[];
}

export interface FakePix {
  endToEndId: string;
  txid: string;
  valor: string;
  horario: string;
  devolucoes?: FakeDevolucao[];
}

export interface FakeDevolucao {
  id: string;
  rtrId: string;
  valor: string;
  horario: { solicitacao: string; liquidacao?: string };
  status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
  motivo?: string;
}

export interface PspRequest {
  method: string;
  path: string;
  body: unknown;
  authorization: string | undefined;
  clientCertificateCn: string | undefined;
}

export interface FakePsp {
  /** `https://127.0.0.1:<port>/v2`. */
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** The CA that signed the PSP's server certificate and accepts client certificates. */
  caPem: string;
  cobs: Map<string, FakeCob>;
  /** chave → webhookUrl. */
  webhooks: Map<string, string>;
  /** Pix Automático: its state, its webhooks and the payer's controls. */
  rec: FakeRecResources;
  requests: PspRequest[];
  tokensIssued: number;
  /** Each callback POST and the status it got (null: no answer). */
  callbacks: { url: string; body: unknown; status: number | null }[];
  /** When true, payments and refunds happen but no callback is sent. */
  dropCallbacks: boolean;
  /** The next `count` API calls (not the token endpoint) answer 500, or hang without answering. */
  failWith(mode: '500' | 'hang', count?: number): void;
  /**
   * The `nth` coming call (1: the next) of `route` answers 500. A route is the method and the path
   * after `/v2` with each id written `:id`: `'POST /rec'`, `'GET /rec/:id'`, `'PUT /cob/:id'`.
   * `{ after: true }` plays a PSP that did the work and lost the answer (a 5xx or a timeout on the
   * way back): the change is stored, the caller sees only the 500.
   */
  failCall(route: string, nth?: number, options?: { after?: boolean }): void;
  /** Every token issued so far stops working (401). */
  expireTokens(): void;
  /** While true, every API call answers 401, even with a token just issued (a revoked client). */
  refuseAllTokens: boolean;
  /**
   * While true, a `PUT /cob/{txid}` whose txid exists is refused (400), as some PSPs do; the standard
   * leaves it open, and by default this PSP takes it as a revision of an ATIVA cob.
   */
  refuseTxidReuse: boolean;
  /** The payer pays `txid` (by default its full amount); returns the Pix's endToEndId. */
  pay(txid: string, options?: { valor?: string }): Promise<string>;
  /** A refund reaches its final status; a callback names the Pix (unless dropped). */
  settleRefund(
    e2eid: string,
    id: string,
    status: 'DEVOLVIDO' | 'NAO_REALIZADO',
    motivo?: string,
  ): Promise<void>;
  /** Changes what `GET /cob/{txid}` will say, to play a PSP whose data disagrees with a callback. */
  tamper(txid: string, change: Partial<Pick<FakeCob, 'status' | 'chave'>> & { valor?: string }): void;
  close(): Promise<void>;
}

const TXID = /^[a-zA-Z0-9]{26,35}$/;
const VALOR = /^\d{1,10}\.\d{2}$/;
const E2E = /^[a-zA-Z0-9]{32}$/;
const DEVOLUCAO_ID = /^[a-zA-Z0-9]{1,35}$/;
const COB_FIELDS = new Set([
  'calendario',
  'devedor',
  'loc',
  'valor',
  'chave',
  'solicitacaoPagador',
  'infoAdicionais',
]);

function checkCob(body: Record<string, unknown>, chave: string, creating: boolean): void {
  for (const key of Object.keys(body)) if (!COB_FIELDS.has(key)) throw cobInvalida(`campo desconhecido`, key);
  const calendario = body.calendario as { expiracao?: unknown } | undefined;
  if (creating || calendario !== undefined) {
    const expiracao = calendario?.expiracao;
    if (expiracao !== undefined && (!Number.isInteger(expiracao) || (expiracao as number) <= 0)) {
      throw cobInvalida(
        'O campo cob.calendario.expiracao é igual ou menor que zero.',
        'cob.calendario.expiracao',
      );
    }
  }
  const original = (body.valor as { original?: unknown } | undefined)?.original;
  if (creating || body.valor !== undefined) {
    if (typeof original !== 'string' || !VALOR.test(original)) {
      throw cobInvalida('O campo cob.valor.original não respeita o _schema_.', 'cob.valor.original');
    }
    if (Number(original) === 0) throw cobInvalida('O campo cob.valor.original é zero.', 'cob.valor.original');
  }
  if (creating || body.chave !== undefined) {
    if (typeof body.chave !== 'string' || body.chave.length > 77) {
      throw cobInvalida('O campo cob.chave não respeita o _schema_.', 'cob.chave');
    }
    if (body.chave !== chave) {
      throw cobInvalida(
        'O campo cob.chave corresponde a uma conta que não pertence a este usuário recebedor.',
        'cob.chave',
      );
    }
  }
  if (body.solicitacaoPagador !== undefined) {
    if (typeof body.solicitacaoPagador !== 'string' || [...body.solicitacaoPagador].length > 140) {
      throw cobInvalida('O campo solicitacaoPagador não respeita o _schema_.', 'cob.solicitacaoPagador');
    }
  }
  if (body.devedor !== undefined) {
    const devedor = body.devedor as Record<string, unknown>;
    const cpf = devedor.cpf;
    const cnpj = devedor.cnpj;
    const valid =
      typeof devedor.nome === 'string' &&
      devedor.nome.length >= 1 &&
      devedor.nome.length <= 200 &&
      ((typeof cpf === 'string' && /^\d{11}$/.test(cpf) && cnpj === undefined) ||
        (typeof cnpj === 'string' && /^[0-9A-Z]{14}$/.test(cnpj) && cpf === undefined));
    if (!valid) throw cobInvalida('O objeto cob.devedor não respeita o _schema_.', 'cob.devedor');
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** An OAuth2 token endpoint's error answer (400, `{error, error_description}`). */
class OAuthError {
  constructor(
    readonly error: string,
    readonly description: string,
  ) {}
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export async function startFakePsp(options: FakePspOptions): Promise<FakePsp> {
  const pki = testPki();
  const clientId = options.clientId ?? 'client-id-loja';
  const clientSecret = options.clientSecret ?? 'client-secret-loja';
  const tokenTtl = options.tokenTtlSeconds ?? 3600;
  const tokens = new Map<string, number>(); // token → expiry (ms)
  const cobs = new Map<string, FakeCob>();
  const pixByE2e = new Map<string, FakePix>();
  const webhooks = new Map<string, string>();
  const requests: PspRequest[] = [];
  const callbacks: FakePsp['callbacks'] = [];
  const hanging = new Set<ServerResponse>();
  let failures: { mode: '500' | 'hang'; count: number } | null = null;
  const routeFailures: { route: string; remaining: number; after: boolean }[] = [];
  /** `GET /rec/RR1234…?txid=…` → `GET /rec/:id`: the resource names stay, the ids between them go. */
  const routeOf = (method: string, path: string) =>
    `${method} /${path
      .split('/')
      .filter(Boolean)
      .map((segment, i) => (i % 2 === 0 ? segment : ':id'))
      .join('/')}`;
  const internalError = () =>
    new Problem(
      500,
      'ErroInternoDoServidor',
      'Erro interno do servidor.',
      'Condição inesperada ao processar requisição.',
    );
  let port = 0;

  const send = (res: ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const sendProblem = (res: ServerResponse, problem: Problem) => {
    res.writeHead(problem.status, { 'content-type': 'application/problem+json' });
    res.end(
      JSON.stringify({
        type: `https://pix.bcb.gov.br/api/v2/error/${problem.type}`,
        title: problem.title,
        status: problem.status,
        detail: problem.detail,
        ...(problem.violacoes.length > 0 && { violacoes: problem.violacoes }),
      }),
    );
  };

  async function postCallback(url: string | null | undefined, suffix: string, body: unknown): Promise<void> {
    if (!url || psp.dropCallbacks) return;
    const target = `${url}/${suffix}`;
    try {
      const res = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await res.text();
      callbacks.push({ url: target, body, status: res.status });
    } catch {
      callbacks.push({ url: target, body, status: null });
    }
  }

  function cobOr404(txid: string): FakeCob {
    const cob = cobs.get(txid);
    if (!cob)
      throw new Problem(
        404,
        'CobNaoEncontrado',
        'Cobrança não encontrada.',
        `Cobrança ${txid} não encontrada.`,
      );
    return cob;
  }

  async function api(method: string, path: string, url: URL, body: unknown): Promise<[number, unknown?]> {
    const segments = path.split('/').filter(Boolean).map(decodeURIComponent);
    const object = (body ?? {}) as Record<string, unknown>;
    const automatico = rec.route(method, segments, url, body);
    if (automatico) return automatico;
    if (segments[0] === 'cob' && segments.length === 1 && method === 'GET') {
      const inicio = url.searchParams.get('inicio');
      const fim = url.searchParams.get('fim');
      if (
        !inicio ||
        !fim ||
        Number.isNaN(Date.parse(inicio)) ||
        Number.isNaN(Date.parse(fim)) ||
        fim < inicio
      ) {
        throw new Problem(
          400,
          'CobConsultaInvalida',
          'Consulta inválida.',
          'inicio e fim são obrigatórios (RFC 3339), fim ≥ inicio.',
        );
      }
      const list = [...cobs.values()].filter(
        (c) => c.calendario.criacao >= inicio && c.calendario.criacao <= fim,
      );
      return [
        200,
        {
          parametros: {
            inicio,
            fim,
            paginacao: {
              paginaAtual: 0,
              itensPorPagina: 100,
              quantidadeDePaginas: 1,
              quantidadeTotalDeItens: list.length,
            },
          },
          cobs: list,
        },
      ];
    }
    if (segments[0] === 'cob' && segments.length === 2) {
      const txid = segments[1]!;
      if (!TXID.test(txid)) throw cobInvalida('O txid não respeita o _schema_.', 'txid');
      if (method === 'PUT') {
        const violacoes = apiPixViolations('CobSolicitada', body);
        if (violacoes.length > 0) {
          throw new Problem(
            400,
            'CobOperacaoInvalida',
            'Cobrança inválida.',
            'A requisição não respeita o _schema_.',
            violacoes,
          );
        }
        checkCob(object, options.chave, true);
        const existing = cobs.get(txid);
        if (existing && psp.refuseTxidReuse) {
          throw new Problem(
            400,
            'CobOperacaoInvalida',
            'Operação inválida.',
            'O txid informado já foi utilizado.',
          );
        }
        if (existing && existing.status !== 'ATIVA') {
          throw new Problem(
            400,
            'CobOperacaoInvalida',
            'Operação inválida.',
            'A cobrança já existe, não está no status ATIVA.',
          );
        }
        const valor = (object.valor as { original: string }).original;
        const location = existing?.location ?? `127.0.0.1:${port}/qr/v2/${alnum(32)}`;
        const cob: FakeCob = {
          txid,
          revisao: existing ? existing.revisao + 1 : 0,
          status: 'ATIVA',
          calendario: {
            criacao: existing?.calendario.criacao ?? new Date().toISOString(),
            expiracao: (object.calendario as { expiracao?: number } | undefined)?.expiracao ?? 86400,
          },
          valor: { original: valor },
          chave: object.chave as string,
          ...(object.devedor !== undefined && { devedor: object.devedor as Record<string, string> }),
          ...(object.solicitacaoPagador !== undefined && {
            solicitacaoPagador: object.solicitacaoPagador as string,
          }),
          location,
          pixCopiaECola: dynamicBrCode(location, valor),
          pix: [],
        };
        cobs.set(txid, cob);
        return [existing ? 200 : 201, cob];
      }
      if (method === 'GET') return [200, cobOr404(txid)];
      if (method === 'PATCH') {
        const cob = cobOr404(txid);
        const { status, ...rest } = object;
        if (status !== undefined && status !== 'REMOVIDA_PELO_USUARIO_RECEBEDOR') {
          throw cobInvalida('O campo cob.status não respeita o _schema_.', 'cob.status');
        }
        if (cob.status !== 'ATIVA') {
          throw new Problem(
            400,
            'CobOperacaoInvalida',
            'Operação inválida.',
            `A cobrança não está ATIVA (está ${cob.status}).`,
          );
        }
        if (status !== undefined && Object.keys(rest).length > 0) {
          throw new Problem(
            400,
            'CobOperacaoInvalida',
            'Operação inválida.',
            'Remoção junto com outras alterações.',
          );
        }
        checkCob(rest, options.chave, false);
        if (status) cob.status = 'REMOVIDA_PELO_USUARIO_RECEBEDOR';
        cob.revisao++;
        return [200, cob];
      }
    }
    if (segments[0] === 'pix' && segments[2] === 'devolucao' && segments.length === 4) {
      const [, e2eid, , id] = segments as [string, string, string, string];
      if (!E2E.test(e2eid) || !DEVOLUCAO_ID.test(id)) {
        throw new Problem(
          400,
          'PixDevolucaoInvalida',
          'Devolução inválida.',
          'e2eid ou id não respeitam o _schema_.',
        );
      }
      const pix = pixByE2e.get(e2eid);
      if (!pix)
        throw new Problem(404, 'PixNaoEncontrado', 'Pix não encontrado.', `Pix ${e2eid} não encontrado.`);
      const found = pix.devolucoes?.find((d) => d.id === id);
      if (method === 'GET') {
        if (!found)
          throw new Problem(
            404,
            'PixDevolucaoNaoEncontrada',
            'Devolução não encontrada.',
            `Devolução ${id} não encontrada.`,
          );
        return [200, found];
      }
      if (method === 'PUT') {
        const valor = object.valor;
        if (typeof valor !== 'string' || !VALOR.test(valor) || Number(valor) === 0) {
          throw new Problem(
            400,
            'PixDevolucaoInvalida',
            'Devolução inválida.',
            'O campo devolucao.valor não respeita o _schema_.',
            [{ razao: 'O campo devolucao.valor não respeita o _schema_.', propriedade: 'devolucao.valor' }],
          );
        }
        if (found) {
          if (found.valor !== valor) {
            throw new Problem(
              400,
              'PixDevolucaoInvalida',
              'Devolução inválida.',
              `O id ${id} já foi utilizado por outra devolução.`,
            );
          }
          return [201, found];
        }
        const returned = (pix.devolucoes ?? [])
          .filter((d) => d.status !== 'NAO_REALIZADO')
          .reduce((sum, d) => sum + Number(d.valor), 0);
        if (returned + Number(valor) > Number(pix.valor) + 1e-9) {
          throw new Problem(
            400,
            'PixDevolucaoInvalida',
            'Devolução inválida.',
            'A devolução excederia o valor do Pix originário.',
          );
        }
        const devolucao: FakeDevolucao = {
          id,
          rtrId: `D${alnum(31)}`,
          valor,
          horario: { solicitacao: new Date().toISOString() },
          status: 'EM_PROCESSAMENTO',
        };
        pix.devolucoes = [...(pix.devolucoes ?? []), devolucao];
        return [201, devolucao];
      }
    }
    if (segments[0] === 'webhook' && segments.length === 2 && method === 'PUT') {
      const chave = segments[1]!;
      const webhookUrl = object.webhookUrl;
      if (chave !== options.chave) {
        throw new Problem(
          400,
          'WebhookOperacaoInvalida',
          'Webhook inválido.',
          'A chave não pertence a este usuário recebedor.',
        );
      }
      if (typeof webhookUrl !== 'string' || !/^https?:\/\/\S+$/.test(webhookUrl)) {
        throw new Problem(
          400,
          'WebhookOperacaoInvalida',
          'Webhook inválido.',
          'Campo webhook.webhookUrl não respeita o _schema_.',
        );
      }
      webhooks.set(chave, webhookUrl);
      return [200];
    }
    throw new Problem(404, 'NaoEncontrado', 'Não Encontrado', 'Entidade não encontrada.');
  }

  const endpoint = {
    auth: 'basic',
    secret: true,
    format: 'form',
    scope: '',
    params: {},
    ...options.token,
  } satisfies Required<FakeTokenEndpoint>;

  /**
   * Why a token request is refused, or null: it has the shape this PSP requires. A request of another
   * shape gets an OAuth2 error (RFC 6749 §5.2), as token endpoints answer; wrong credentials, the
   * standard's problem.
   */
  function tokenRequestRefusal(req: IncomingMessage, text: string): Problem | OAuthError | null {
    const invalid = (description: string, error = 'invalid_request') => new OAuthError(error, description);
    const denied = () =>
      new Problem(401, 'AcessoNegado', 'Não autorizado.', 'Credenciais do cliente inválidas.');
    const json = endpoint.format === 'json';
    if (!(req.headers['content-type'] ?? '').includes(json ? 'application/json' : 'x-www-form-urlencoded')) {
      return invalid(`O corpo deve ser ${json ? 'JSON' : 'application/x-www-form-urlencoded'}.`);
    }
    let fields: Record<string, unknown>;
    try {
      fields = json
        ? (JSON.parse(text) as Record<string, unknown>)
        : Object.fromEntries(new URLSearchParams(text));
    } catch {
      return invalid('JSON malformado.');
    }
    if (fields.grant_type !== 'client_credentials') return invalid('grant_type deve ser client_credentials.');
    const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
    if (endpoint.auth === 'basic') {
      if ('client_secret' in fields) return invalid('Credenciais devem ir no cabeçalho Authorization.');
      if (!safeEqual(req.headers.authorization ?? '', basic)) return denied();
    } else {
      if (req.headers.authorization !== undefined) return invalid('Credenciais devem ir no corpo.');
      if (!endpoint.secret && 'client_secret' in fields) return invalid('client_secret não é aceito.');
      const secretOk = !endpoint.secret || safeEqual(String(fields.client_secret ?? ''), clientSecret);
      if (!safeEqual(String(fields.client_id ?? ''), clientId) || !secretOk) return denied();
    }
    const asked = new Set(String(fields.scope ?? '').split(' '));
    const missing = endpoint.scope.split(' ').filter((scope) => scope !== '' && !asked.has(scope));
    if (missing.length > 0) return invalid(`Escopo ausente: ${missing.join(' ')}.`, 'invalid_scope');
    for (const [name, value] of Object.entries(endpoint.params)) {
      if (fields[name] !== value) return invalid(`Parâmetro ${name} ausente ou inválido.`);
    }
    return null;
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const text = await readBody(req);
    let body: unknown;
    try {
      body =
        text === '' ? undefined : req.headers['content-type']?.includes('json') ? JSON.parse(text) : text;
    } catch {
      return sendProblem(
        res,
        new Problem(400, 'RequisicaoInvalida', 'Requisição inválida.', 'JSON malformado.'),
      );
    }
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    requests.push({
      method: req.method ?? '',
      path: url.pathname + url.search,
      body,
      authorization: req.headers.authorization,
      clientCertificateCn: typeof peer?.subject?.CN === 'string' ? peer.subject.CN : undefined,
    });

    if (url.pathname === '/oauth/token' && req.method === 'POST') {
      const refusal = tokenRequestRefusal(req, text);
      if (refusal instanceof Problem) return sendProblem(res, refusal);
      if (refusal) return send(res, 400, { error: refusal.error, error_description: refusal.description });
      const token = alnum(40);
      tokens.set(token, Date.now() + tokenTtl * 1000);
      psp.tokensIssued++;
      return send(res, 200, {
        access_token: token,
        token_type: 'Bearer',
        expires_in: tokenTtl,
        scope:
          'cob.write cob.read pix.write pix.read webhook.write payloadlocationrec.write rec.write rec.read cobr.write cobr.read webhookrec.write webhookcobr.write',
      });
    }
    if (!url.pathname.startsWith('/v2/'))
      return sendProblem(
        res,
        new Problem(404, 'NaoEncontrado', 'Não Encontrado', 'Entidade não encontrada.'),
      );

    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const expiry = bearer === undefined ? undefined : tokens.get(bearer);
    if (expiry === undefined || expiry <= Date.now() || psp.refuseAllTokens) {
      return sendProblem(
        res,
        new Problem(401, 'AcessoNegado', 'Não autorizado.', 'Token de acesso ausente, inválido ou expirado.'),
      );
    }
    const route = routeOf(req.method ?? '', url.pathname.slice(3));
    const injected = routeFailures.find((f) => f.route === route);
    if (injected && --injected.remaining === 0) {
      routeFailures.splice(routeFailures.indexOf(injected), 1);
      if (injected.after)
        await api(req.method ?? '', url.pathname.slice(3), url, body).catch(() => undefined);
      return sendProblem(res, internalError());
    }
    if (failures && failures.count > 0) {
      failures.count--;
      const mode = failures.mode;
      if (failures.count === 0) failures = null;
      if (mode === 'hang') {
        // The work is done (a PUT is stored), but the answer never comes: a PSP timing out.
        await api(req.method ?? '', url.pathname.slice(3), url, body).catch(() => undefined);
        hanging.add(res);
        return;
      }
      return sendProblem(res, internalError());
    }
    try {
      const [status, answer] = await api(req.method ?? '', url.pathname.slice(3), url, body);
      return send(res, status, answer);
    } catch (error) {
      if (error instanceof Problem) return sendProblem(res, error);
      throw error;
    }
  }

  const rec = fakeRecResources({
    host: () => `127.0.0.1:${port}`,
    cobLocation: (txid) => {
      const cob = cobs.get(txid);
      return cob && { location: cob.location, valor: cob.valor.original, status: cob.status };
    },
    payCob: (txid) => psp.pay(txid),
    postCallback,
  });

  const server: Server = createServer(
    {
      key: pki.server.key,
      cert: pki.server.cert,
      ca: pki.ca.cert,
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) => {
      // A bug of the fake itself (an answer off the standard's schema): a 500 that says what.
      onRequest(req, res).catch((error: unknown) => {
        if (!res.headersSent) {
          sendProblem(
            res,
            new Problem(500, 'ErroInternoDoServidor', 'Erro interno do servidor.', String(error)),
          );
        }
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : 0;

  const psp: FakePsp = {
    baseUrl: `https://127.0.0.1:${port}/v2`,
    tokenUrl: `https://127.0.0.1:${port}/oauth/token`,
    clientId,
    clientSecret,
    caPem: pki.ca.cert,
    cobs,
    webhooks,
    rec,
    requests,
    tokensIssued: 0,
    callbacks,
    dropCallbacks: false,
    refuseAllTokens: false,
    refuseTxidReuse: false,
    failWith(mode, count = 1) {
      failures = { mode, count };
    },
    failCall(route, nth = 1, failOptions = {}) {
      routeFailures.push({ route, remaining: nth, after: failOptions.after ?? false });
    },
    expireTokens() {
      for (const token of tokens.keys()) tokens.set(token, 0);
    },
    async pay(txid, payOptions = {}) {
      const cob = cobOr404(txid);
      if (cob.status !== 'ATIVA') throw new Error(`cob ${txid} is ${cob.status}`);
      const pix: FakePix = {
        endToEndId: `E12345678${new Date().toISOString().replace(/\D/g, '').slice(0, 12)}${alnum(11)}`,
        txid,
        valor: payOptions.valor ?? cob.valor.original,
        horario: new Date().toISOString(),
      };
      cob.status = 'CONCLUIDA';
      cob.pix.push(pix);
      pixByE2e.set(pix.endToEndId, pix);
      await postCallback(webhooks.get(options.chave), 'pix', { pix: [pix] });
      return pix.endToEndId;
    },
    async settleRefund(e2eid, id, status, motivo) {
      const pix = pixByE2e.get(e2eid);
      const devolucao = pix?.devolucoes?.find((d) => d.id === id);
      if (!pix || !devolucao) throw new Error(`no refund ${id} of ${e2eid}`);
      devolucao.status = status;
      devolucao.horario.liquidacao = new Date().toISOString();
      if (motivo !== undefined) devolucao.motivo = motivo;
      await postCallback(webhooks.get(options.chave), 'pix', { pix: [pix] });
    },
    tamper(txid, change) {
      const cob = cobOr404(txid);
      if (change.status) cob.status = change.status;
      if (change.chave) cob.chave = change.chave;
      if (change.valor) {
        cob.valor.original = change.valor;
        for (const pix of cob.pix) pix.valor = change.valor;
      }
      if (cob.status === 'CONCLUIDA' && cob.pix.length === 0) {
        const pix: FakePix = {
          endToEndId: `E12345678${alnum(23)}`,
          txid,
          valor: cob.valor.original,
          horario: new Date().toISOString(),
        };
        cob.pix.push(pix);
      }
    },
    close() {
      for (const res of hanging) res.destroy();
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  return psp;
}
