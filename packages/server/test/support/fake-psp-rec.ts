import { apiPixViolations } from './api-pix-schemas.js';
import type { ApiPixSchema } from './api-pix-schemas.js';
import { Problem, alnum, dynamicBrCode } from './fake-psp-wire.js';

/**
 * The fake PSP's Pix Automático: `POST /locrec`, `GET /locrec/{id}` (names the rec linked to it),
 * `POST|GET|PATCH /rec`, `PUT|GET /cobr/{txid}`,
 * `POST /cobr/{txid}/retentativa/{data}`, `PUT /webhookrec`, `PUT /webhookcobr`. Every request body
 * is checked against the standard's JSON schema (400 with its `violacoes`), and every answer is
 * checked against the schema of its shape before it leaves, so neither side drifts from the
 * standard. The payer's side is played by the controls (`payJourney3`, `payRefusingJourney3`, `settleCobr`, `failCobr`,
 * `endRec`), which change the state and POST the callbacks (`<webhookUrl>/rec`, `/cobr`).
 */

export interface FakeRec {
  idRec: string;
  status: 'CRIADA' | 'APROVADA' | 'REJEITADA' | 'EXPIRADA' | 'CANCELADA';
  vinculo: { contrato: string; devedor: Record<string, string>; objeto?: string };
  calendario: { dataInicial: string; periodicidade: string };
  valor: { valorRec?: string };
  politicaRetentativa: 'NAO_PERMITE' | 'PERMITE_3R_7D';
  recebedor: { cnpj: string; nome: string };
  loc: FakeLocRec;
  atualizacao: { status: FakeRec['status']; data: string }[];
  ativacao: { tipoJornada: string; dadosJornada?: { txid: string } };
  encerramento?: Record<string, { solicitante?: string; codigo: string; descricao: string }>;
}

export interface FakeLocRec {
  id: number;
  location: string;
  tipo: 'rec';
  criacao: string;
  idRec?: string;
}

type TentativaStatus = 'SOLICITADA' | 'AGENDADA' | 'PAGA' | 'CANCELADA' | 'REJEITADA' | 'EXPIRADA';

export interface FakeCobr {
  idRec: string;
  txid: string;
  status: 'CRIADA' | 'ATIVA' | 'CONCLUIDA' | 'EXPIRADA' | 'REJEITADA' | 'CANCELADA';
  calendario: { criacao: string; dataDeVencimento: string };
  valor: { original: string };
  politicaRetentativa: FakeRec['politicaRetentativa'];
  ajusteDiaUtil: boolean;
  devedor?: Record<string, string>;
  recebedor: typeof RECEBEDOR & typeof RECEBEDOR_CONTA;
  pix?: { endToEndId: string; txid: string; valor: string; horario: string }[];
  tentativas: {
    dataLiquidacao: string;
    tipo: 'AGND' | 'NTAG' | 'RIFL';
    endToEndId: string;
    status: TentativaStatus;
    atualizacao: { status: TentativaStatus; data: string }[];
    rejeicao?: { codigo: string; descricao: string };
  }[];
  atualizacao: { status: FakeCobr['status']; data: string }[];
}

export interface FakeRecContext {
  /** The PSP's own host:port, for locations. */
  host(): string;
  /** The immediate charges, for Jornada 3's first charge. */
  cobLocation(txid: string): { location: string; valor: string; status: string } | undefined;
  /** The payer pays a cob (and the PSP sends its `/pix` callback). */
  payCob(txid: string): Promise<string>;
  /** POSTs `body` to `<url>/<suffix>` unless callbacks are dropped, recording it. */
  postCallback(url: string | null, suffix: 'rec' | 'cobr', body: unknown): Promise<void>;
}

export interface FakeRecResources {
  locrecs: Map<number, FakeLocRec>;
  recs: Map<string, FakeRec>;
  cobrs: Map<string, FakeCobr>;
  webhookRec: string | null;
  webhookCobr: string | null;
  /** False plays a PSP without Pix Automático: every one of its paths answers 404. */
  offersPixAutomatico: boolean;
  /** Rewrites the next composite codes `GET /rec/{idRec}?txid=` answers (a PSP sending a bad code). */
  compositeOverride: ((code: string) => string) | null;
  /** Routes one API call; undefined when the path is not Pix Automático's. */
  route(method: string, segments: string[], url: URL, body: unknown): [number, unknown?] | undefined;
  /** The payer scans the composite code: pays the first cob and approves the rec (Jornada 3). */
  payJourney3(idRec: string): Promise<void>;
  /** The payer scans the composite code, pays the first cob but refuses the recurrence (`REJEITADA`, AP13). */
  payRefusingJourney3(idRec: string): Promise<void>;
  /** The scheduled attempt of a cycle settles: the cobr is CONCLUIDA with its Pix. */
  settleCobr(txid: string): Promise<string>;
  /** The current attempt of a cycle fails (the payer's account could not pay). */
  failCobr(txid: string, codigo?: string): Promise<void>;
  /** The payer (at their bank) or their PSP ends the authorisation. */
  endRec(idRec: string, solicitante: 'USUARIO_PAGADOR' | 'PSP_PAGADOR'): Promise<void>;
}

const ISPB = '12345678';
const RECEBEDOR = { cnpj: '12345678000195', nome: 'Loja Teste Ltda' };
/** The payee's account at this PSP: a cobr's `recebedor` must name it. */
export const RECEBEDOR_CONTA = { agencia: '0001', conta: '12345-6', tipoConta: 'CORRENTE' } as const;
const TXID = /^[a-zA-Z0-9]{26,35}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const invalid = (type: string, title: string, detail: string, violacoes: Problem['violacoes'] = []) =>
  new Problem(400, type, title, detail, violacoes);

/** 400 with the standard's violations when `body` does not match `schema`. */
function checkBody(schema: ApiPixSchema, body: unknown, type: string, title: string): void {
  const violacoes = apiPixViolations(schema, body);
  if (violacoes.length > 0) {
    throw invalid(type, title, `A requisição não respeita o _schema_ ${schema}.`, violacoes);
  }
}

/** The fake's own answers must be the standard's shapes: a mismatch is a bug of the fake. */
function answer(schema: ApiPixSchema, status: number, body: unknown): [number, unknown] {
  const violations = apiPixViolations(schema, body);
  if (violations.length > 0) {
    throw new Error(`fake PSP answer is not a ${schema}: ${JSON.stringify(violations)}`);
  }
  return [status, body];
}

const now = () => new Date().toISOString();
const today = () => now().slice(0, 10);
const endToEndId = () => `E${ISPB}${now().replace(/\D/g, '').slice(0, 12)}${alnum(11)}`;
const notFound = (what: string) =>
  new Problem(404, 'NaoEncontrado', 'Não Encontrado', `${what} não encontrada.`);

export function fakeRecResources(context: FakeRecContext): FakeRecResources {
  let nextLoc = 1;

  function recOr404(idRec: string): FakeRec {
    const rec = resources.recs.get(idRec);
    if (!rec) throw notFound(`Recorrência ${idRec}`);
    return rec;
  }
  function cobrOr404(txid: string): FakeCobr {
    const cobr = resources.cobrs.get(txid);
    if (!cobr) throw notFound(`Cobrança recorrente ${txid}`);
    return cobr;
  }
  const recInvalida = (detail: string) => invalid('RecOperacaoInvalida', 'Recorrência inválida.', detail);
  const cobrInvalida = (detail: string) =>
    invalid('CobROperacaoInvalida', 'Cobrança recorrente inválida.', detail);

  /** A rec still waiting for the payer's Jornada 3 answer, and its first charge. */
  function journey3(idRec: string): { rec: FakeRec; txid: string } {
    const rec = recOr404(idRec);
    const txid = rec.ativacao.dadosJornada?.txid;
    if (rec.status !== 'CRIADA' || txid === undefined) throw new Error(`rec ${idRec} is ${rec.status}`);
    return { rec, txid };
  }
  function setRecStatus(rec: FakeRec, status: FakeRec['status']): void {
    rec.status = status;
    rec.atualizacao.push({ status, data: now() });
  }
  function setCobrStatus(cobr: FakeCobr, status: FakeCobr['status']): void {
    cobr.status = status;
    cobr.atualizacao.push({ status, data: now() });
  }
  function setAttempt(
    cobr: FakeCobr,
    status: TentativaStatus,
    rejeicao?: { codigo: string; descricao: string },
  ) {
    const attempt = cobr.tentativas.at(-1)!;
    attempt.status = status;
    attempt.atualizacao.push({ status, data: now() });
    if (rejeicao) attempt.rejeicao = rejeicao;
  }
  const recNotice = (rec: FakeRec) => ({
    recs: [
      {
        idRec: rec.idRec,
        status: rec.status,
        atualizacao: rec.atualizacao,
        ativacao: rec.ativacao,
        ...(rec.encerramento && { encerramento: rec.encerramento }),
      },
    ],
  });
  const cobrNotice = (cobr: FakeCobr) => ({
    cobsr: [
      {
        idRec: cobr.idRec,
        txid: cobr.txid,
        status: cobr.status,
        atualizacao: cobr.atualizacao,
        tentativas: cobr.tentativas,
        ...(cobr.pix && { pix: cobr.pix }),
      },
    ],
  });

  function createRec(body: Record<string, unknown>): [number, unknown] {
    checkBody('RecSolicitada', body, 'RecOperacaoInvalida', 'Recorrência inválida.');
    const request = body as {
      vinculo: FakeRec['vinculo'];
      calendario: FakeRec['calendario'];
      valor?: FakeRec['valor'];
      politicaRetentativa: FakeRec['politicaRetentativa'];
      loc?: number;
      ativacao?: { dadosJornada?: { txid: string } };
    };
    const loc = request.loc === undefined ? undefined : resources.locrecs.get(request.loc);
    if (request.loc !== undefined && !loc) throw recInvalida(`A location ${request.loc} não existe.`);
    if (loc?.idRec !== undefined)
      throw recInvalida(`A location ${loc.id} já está vinculada a outra recorrência.`);
    const txid = request.ativacao?.dadosJornada?.txid;
    if (txid !== undefined && context.cobLocation(txid)?.status !== 'ATIVA') {
      throw recInvalida(`A cobrança ${txid} da Jornada 3 não existe ou não está ATIVA.`);
    }
    if (!loc) throw recInvalida('Esta instituição exige uma location (loc) para a recorrência.');
    const retry = request.politicaRetentativa === 'PERMITE_3R_7D' ? 'R' : 'N';
    const idRec = `R${retry}${ISPB}${today().replace(/-/g, '')}${alnum(11)}`;
    loc.idRec = idRec;
    const rec: FakeRec = {
      idRec,
      status: 'CRIADA',
      vinculo: request.vinculo,
      calendario: request.calendario,
      valor: request.valor ?? {},
      politicaRetentativa: request.politicaRetentativa,
      recebedor: RECEBEDOR,
      loc,
      atualizacao: [{ status: 'CRIADA', data: now() }],
      ativacao: {
        tipoJornada: 'AGUARDANDO_DEFINICAO',
        ...(txid !== undefined && { dadosJornada: { txid } }),
      },
    };
    resources.recs.set(idRec, rec);
    return answer('RecGerada', 201, rec);
  }

  function readRec(idRec: string, txid: string | null): [number, unknown] {
    const rec = recOr404(idRec);
    if (txid === null) return answer('RecCompleta', 200, rec);
    const cob = context.cobLocation(txid);
    if (!cob) throw notFound(`Cobrança ${txid}`);
    let code = dynamicBrCode(cob.location, cob.valor, rec.loc.location);
    if (resources.compositeOverride) code = resources.compositeOverride(code);
    return answer('RecCompleta', 200, { ...rec, dadosQR: { jornada: 'JORNADA_3', pixCopiaECola: code } });
  }

  function reviseRec(idRec: string, body: Record<string, unknown>): [number, unknown] {
    checkBody('RecRevisada', body, 'RecOperacaoInvalida', 'Recorrência inválida.');
    const rec = recOr404(idRec);
    if (body.status !== 'CANCELADA')
      throw recInvalida('Somente o cancelamento é suportado por esta instituição.');
    if (rec.status !== 'CRIADA' && rec.status !== 'APROVADA') {
      throw recInvalida(`A recorrência não pode ser cancelada: está ${rec.status}.`);
    }
    setRecStatus(rec, 'CANCELADA');
    rec.encerramento = {
      cancelamento: {
        solicitante: 'USUARIO_RECEBEDOR',
        codigo: 'SLCR',
        descricao: 'Cancelamento solicitado pelo usuário recebedor',
      },
    };
    return answer('RecGerada', 200, rec);
  }

  function createCobr(txid: string, body: Record<string, unknown>): [number, unknown] {
    if (!TXID.test(txid)) throw cobrInvalida('O txid não respeita o _schema_.');
    checkBody('CobRSolicitada', body, 'CobROperacaoInvalida', 'Cobrança recorrente inválida.');
    if (resources.cobrs.has(txid)) throw cobrInvalida(`O txid ${txid} já foi utilizado.`);
    const request = body as {
      idRec: string;
      calendario: { dataDeVencimento: string };
      valor: { original: string };
      ajusteDiaUtil: boolean;
      devedor?: Record<string, string>;
      recebedor: { conta: string; agencia?: string };
    };
    if (
      request.recebedor.conta !== RECEBEDOR_CONTA.conta ||
      request.recebedor.agencia !== RECEBEDOR_CONTA.agencia
    ) {
      throw cobrInvalida(
        'Os campos cobr.recebedor.conta e cobr.recebedor.agencia correspondem a uma conta que não pertence a este usuário recebedor.',
      );
    }
    const rec = resources.recs.get(request.idRec);
    if (!rec) throw cobrInvalida(`A recorrência ${request.idRec} não existe.`);
    if (rec.status !== 'APROVADA')
      throw cobrInvalida(`A recorrência não está APROVADA (está ${rec.status}).`);
    const cobr: FakeCobr = {
      idRec: request.idRec,
      txid,
      status: 'ATIVA',
      calendario: { criacao: today(), dataDeVencimento: request.calendario.dataDeVencimento },
      valor: request.valor,
      politicaRetentativa: rec.politicaRetentativa,
      ajusteDiaUtil: request.ajusteDiaUtil,
      ...(request.devedor && { devedor: request.devedor }),
      recebedor: { ...RECEBEDOR, ...RECEBEDOR_CONTA },
      tentativas: [
        {
          dataLiquidacao: request.calendario.dataDeVencimento,
          tipo: 'AGND',
          endToEndId: endToEndId(),
          status: 'AGENDADA',
          atualizacao: [{ status: 'AGENDADA', data: now() }],
        },
      ],
      atualizacao: [
        { status: 'CRIADA', data: now() },
        { status: 'ATIVA', data: now() },
      ],
    };
    resources.cobrs.set(txid, cobr);
    return answer('CobRGerada', 201, cobr);
  }

  /** PERMITE_3R_7D: up to 3 new attempts, within 7 days of the due date, after a failed one. */
  function retryCobr(txid: string, data: string): [number, unknown] {
    const cobr = cobrOr404(txid);
    const problem = (detail: string) => invalid('CobROperacaoInvalida', 'Retentativa inválida.', detail);
    if (!DATE.test(data) || Number.isNaN(Date.parse(data)))
      throw problem('A data não respeita o formato YYYY-MM-DD.');
    if (cobr.politicaRetentativa !== 'PERMITE_3R_7D')
      throw problem('A recorrência não permite retentativas.');
    if (cobr.status !== 'ATIVA') throw problem(`A cobrança não está ATIVA (está ${cobr.status}).`);
    const last = cobr.tentativas.at(-1)!;
    if (last.status !== 'REJEITADA' && last.status !== 'EXPIRADA') {
      throw problem('A tentativa anterior não falhou.');
    }
    if (cobr.tentativas.filter((t) => t.tipo === 'RIFL').length >= 3)
      throw problem('Limite de 3 retentativas atingido.');
    const days = (Date.parse(data) - Date.parse(cobr.calendario.dataDeVencimento)) / 86_400_000;
    if (days <= 0 || days > 7) throw problem('A data deve estar nos 7 dias seguintes ao vencimento.');
    cobr.tentativas.push({
      dataLiquidacao: data,
      tipo: 'RIFL',
      endToEndId: endToEndId(),
      status: 'SOLICITADA',
      atualizacao: [{ status: 'SOLICITADA', data: now() }],
    });
    return answer('CobRCompleta', 201, cobr);
  }

  function putWebhook(kind: 'rec' | 'cobr', body: unknown): [number] {
    checkBody(
      kind === 'rec' ? 'WebhookRecSolicitado' : 'WebhookCobRSolicitado',
      body,
      kind === 'rec' ? 'WebhookRecOperacaoInvalida' : 'WebhookCobROperacaoInvalida',
      'Webhook inválido.',
    );
    const url = (body as { webhookUrl: string }).webhookUrl;
    if (kind === 'rec') resources.webhookRec = url;
    else resources.webhookCobr = url;
    return [200];
  }

  const resources: FakeRecResources = {
    locrecs: new Map(),
    recs: new Map(),
    cobrs: new Map(),
    webhookRec: null,
    webhookCobr: null,
    offersPixAutomatico: true,
    compositeOverride: null,

    route(method, segments, url, body) {
      const [resource, id, sub, data] = segments;
      const known = ['locrec', 'rec', 'cobr', 'webhookrec', 'webhookcobr'];
      if (resource === undefined || !known.includes(resource)) return undefined;
      if (!resources.offersPixAutomatico) throw notFound('Entidade');
      const object = (body ?? {}) as Record<string, unknown>;
      const key = `${method} ${resource}${id === undefined ? '' : '/:id'}${sub === undefined ? '' : `/${sub}`}${data === undefined ? '' : '/:data'}`;
      switch (key) {
        case 'POST locrec': {
          const loc: FakeLocRec = {
            id: nextLoc++,
            location: `${context.host()}/qr/v2/rec/${alnum(32)}`,
            tipo: 'rec',
            criacao: now(),
          };
          resources.locrecs.set(loc.id, loc);
          return answer('PayloadLocationRecGerada', 201, loc);
        }
        case 'GET locrec/:id': {
          const loc = resources.locrecs.get(Number(id));
          if (!loc) throw notFound(`Location ${id}`);
          return answer('PayloadLocationRecCompleta', 200, loc);
        }
        case 'POST rec':
          return createRec(object);
        case 'GET rec/:id':
          return readRec(id!, url.searchParams.get('txid'));
        case 'PATCH rec/:id':
          return reviseRec(id!, object);
        case 'PUT cobr/:id':
          return createCobr(id!, object);
        case 'GET cobr/:id':
          return answer('CobRCompleta', 200, cobrOr404(id!));
        case 'POST cobr/:id/retentativa/:data':
          return retryCobr(id!, data!);
        case 'PUT webhookrec':
          return putWebhook('rec', body);
        case 'PUT webhookcobr':
          return putWebhook('cobr', body);
        default:
          throw notFound('Entidade');
      }
    },

    async payJourney3(idRec) {
      const { rec, txid } = journey3(idRec);
      await context.payCob(txid);
      setRecStatus(rec, 'APROVADA');
      rec.ativacao = { tipoJornada: 'JORNADA_3', dadosJornada: { txid } };
      await context.postCallback(resources.webhookRec, 'rec', recNotice(rec));
    },

    async payRefusingJourney3(idRec) {
      const { rec, txid } = journey3(idRec);
      await context.payCob(txid);
      setRecStatus(rec, 'REJEITADA');
      rec.ativacao = { tipoJornada: 'JORNADA_3', dadosJornada: { txid } };
      rec.encerramento = {
        rejeicao: { codigo: 'AP13', descricao: 'Recorrência rejeitada pelo usuário pagador.' },
      };
      await context.postCallback(resources.webhookRec, 'rec', recNotice(rec));
    },

    async settleCobr(txid) {
      const cobr = cobrOr404(txid);
      if (cobr.status !== 'ATIVA') throw new Error(`cobr ${txid} is ${cobr.status}`);
      const attempt = cobr.tentativas.at(-1)!;
      setAttempt(cobr, 'PAGA');
      cobr.pix = [{ endToEndId: attempt.endToEndId, txid, valor: cobr.valor.original, horario: now() }];
      setCobrStatus(cobr, 'CONCLUIDA');
      await context.postCallback(resources.webhookCobr, 'cobr', cobrNotice(cobr));
      return attempt.endToEndId;
    },

    async failCobr(txid, codigo = 'AM02') {
      const cobr = cobrOr404(txid);
      if (cobr.status !== 'ATIVA') throw new Error(`cobr ${txid} is ${cobr.status}`);
      setAttempt(cobr, 'REJEITADA', { codigo, descricao: 'Pagamento não realizado pelo PSP do pagador.' });
      // Without retries, or after the third, the cobr itself ends.
      const retries = cobr.tentativas.filter((t) => t.tipo === 'RIFL').length;
      if (cobr.politicaRetentativa === 'NAO_PERMITE' || retries >= 3) setCobrStatus(cobr, 'REJEITADA');
      await context.postCallback(resources.webhookCobr, 'cobr', cobrNotice(cobr));
    },

    async endRec(idRec, solicitante) {
      const rec = recOr404(idRec);
      setRecStatus(rec, 'CANCELADA');
      rec.encerramento = {
        cancelamento: {
          solicitante,
          codigo: solicitante === 'USUARIO_PAGADOR' ? 'SLDB' : 'ACCL',
          descricao: 'Autorização cancelada no PSP do pagador.',
        },
      };
      await context.postCallback(resources.webhookRec, 'rec', recNotice(rec));
    },
  };
  return resources;
}
