import type { ApiPixTransport } from './api-pix-transport.js';
import type { CobCompleta, CobSolicitada, CobsConsultadas, Devolucao } from './api-pix-types.js';

const segment = encodeURIComponent;

/** Thin calls, one per API Pix resource this service uses; the transport owns auth, TLS and errors. */
export function apiPixClient(transport: ApiPixTransport) {
  const call = async <T>(method: 'GET' | 'PUT' | 'PATCH', path: string, body?: unknown) =>
    (await transport.call<T>(method, path, body)).body;
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
    putWebhook: async (chave: string, webhookUrl: string) => {
      await transport.call('PUT', `/webhook/${segment(chave)}`, { webhookUrl });
    },
    close: () => transport.close(),
  };
}

export type ApiPixClient = ReturnType<typeof apiPixClient>;
