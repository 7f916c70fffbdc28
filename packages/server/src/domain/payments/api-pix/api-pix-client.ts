import type { ApiPixTransport } from './api-pix-transport.js';
import type {
  CobRCompleta,
  CobRSolicitada,
  PayloadLocationRec,
  RecCompleta,
  RecSolicitada,
} from './api-pix-rec-types.js';
import type { CobCompleta, CobSolicitada, CobsConsultadas, Devolucao } from './api-pix-types.js';

const segment = encodeURIComponent;

/** Thin calls, one per API Pix resource this service uses; the transport owns auth, TLS and errors. */
export function apiPixClient(transport: ApiPixTransport) {
  const call = async <T>(method: 'GET' | 'PUT' | 'PATCH' | 'POST', path: string, body?: unknown) =>
    (await transport.call<T>(method, path, body)).body;
  const putWebhookAt = async (path: string, webhookUrl: string) => {
    await transport.call('PUT', path, { webhookUrl });
  };
  return {
    putCob: (txid: string, body: CobSolicitada) => call<CobCompleta>('PUT', `/cob/${segment(txid)}`, body),
    getCob: (txid: string) => call<CobCompleta>('GET', `/cob/${segment(txid)}`),
    /** Removes an ATIVA cob; the PSP refuses (400) once it is CONCLUIDA. */
    removeCob: (txid: string) =>
      call<CobCompleta>('PATCH', `/cob/${segment(txid)}`, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' }),
    listCobs: (inicio: string, fim: string) =>
      call<CobsConsultadas>('GET', `/cob?${new URLSearchParams({ inicio, fim }).toString()}`),
    putDevolucao: (e2eid: string, id: string, valor: string) =>
      call<Devolucao>('PUT', `/pix/${segment(e2eid)}/devolucao/${segment(id)}`, { valor }),
    getDevolucao: (e2eid: string, id: string) =>
      call<Devolucao>('GET', `/pix/${segment(e2eid)}/devolucao/${segment(id)}`),
    putWebhook: (chave: string, webhookUrl: string) => putWebhookAt(`/webhook/${segment(chave)}`, webhookUrl),

    // Pix Automático. The standard gives `POST /locrec` no body: the PSP makes a location of type rec.
    postLocrec: () => call<PayloadLocationRec>('POST', '/locrec'),
    /** The location with the rec linked to it (`idRec`), if any: how a lost POST /rec answer is found. */
    getLocrec: (id: number) => call<PayloadLocationRec>('GET', `/locrec/${segment(String(id))}`),
    postRec: (body: RecSolicitada) => call<RecCompleta>('POST', '/rec', body),
    /** With the first charge's txid, `dadosQR` carries the composite code of Jornada 3. */
    getRec: (idRec: string, txid?: string) =>
      call<RecCompleta>(
        'GET',
        `/rec/${segment(idRec)}${txid === undefined ? '' : `?${new URLSearchParams({ txid }).toString()}`}`,
      ),
    cancelRec: (idRec: string) =>
      call<RecCompleta>('PATCH', `/rec/${segment(idRec)}`, { status: 'CANCELADA' }),
    putCobr: (txid: string, body: CobRSolicitada) =>
      call<CobRCompleta>('PUT', `/cobr/${segment(txid)}`, body),
    getCobr: (txid: string) => call<CobRCompleta>('GET', `/cobr/${segment(txid)}`),
    /** `data`: the day of the new attempt, `YYYY-MM-DD`. */
    retryCobr: (txid: string, data: string) =>
      call<CobRCompleta>('POST', `/cobr/${segment(txid)}/retentativa/${segment(data)}`),
    putWebhookRec: (webhookUrl: string) => putWebhookAt('/webhookrec', webhookUrl),
    putWebhookCobr: (webhookUrl: string) => putWebhookAt('/webhookcobr', webhookUrl),
    close: () => transport.close(),
  };
}

export type ApiPixClient = ReturnType<typeof apiPixClient>;
