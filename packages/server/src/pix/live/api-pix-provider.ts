import { BrCodeError, parseBrCode } from '../brcode/index.js';
import type { Customer } from '../customer.js';
import type {
  CancelOutcome,
  Cob,
  CobRequest,
  Devolucao,
  DevolucaoRequest,
  PixProvider,
  ReceivedPix,
} from '../providers/pix-provider.js';
import type { ApiPixClient } from './api-pix-client.js';
import { centsOf, valorOf } from './api-pix-types.js';
import type {
  CobCompleta,
  CobSolicitada,
  Devedor,
  CobStatus,
  Devolucao as PspDevolucao,
} from './api-pix-types.js';
import { ProviderError } from './provider-errors.js';

/** What the PSP says about a cob, reduced to what decides a charge's fate. */
export interface ChargeAtPsp {
  status: CobStatus;
  /** The received Pix that pays the charge in full, to our key, when the cob is CONCLUIDA. */
  payment: ReceivedPix | null;
}

export interface LivePixProvider extends PixProvider {
  getCharge(txid: string, amountCents: number): Promise<ChargeAtPsp>;
  getRefund(endToEndId: string, refundId: string): Promise<Devolucao>;
  registerWebhook(webhookUrl: string): Promise<void>;
  /** `GET /cob?inicio&fim`: proves credentials, certificate and scopes work; returns how many cobs. */
  listRecentCharges(sinceMs: number): Promise<number>;
  close(): Promise<void>;
}

const SOLICITACAO_MAX = 140;
/** What a PSP answers for a txid it already holds: 400 (`CobOperacaoInvalida`), or 409 / 422 at some. */
const TXID_TAKEN_STATUSES = new Set([400, 409, 422]);

/**
 * A PixProvider over one PSP's API Pix for one store, whose Pix key (`chave`) is fixed. Nothing the
 * PSP sends is taken on trust: the copy-and-paste code is parsed (CRC) and its amount checked, and a
 * payment counts only when the cob is CONCLUIDA, to our key, for the charge's amount.
 */
export function apiPixProvider(client: ApiPixClient, chave: string): LivePixProvider {
  function paymentOf(cob: CobCompleta, txid: string, amountCents: number): ReceivedPix | null {
    if (cob.status !== 'CONCLUIDA' || cob.chave !== chave || centsOf(cob.valor?.original) !== amountCents) {
      return null;
    }
    const item = (cob.pix ?? []).find(
      (pix) => centsOf(pix.valor) === amountCents && (pix.txid === undefined || pix.txid === txid),
    );
    if (!item || typeof item.endToEndId !== 'string' || Number.isNaN(Date.parse(item.horario))) return null;
    return {
      endToEndId: item.endToEndId,
      txid,
      amountCents,
      paidAt: new Date(item.horario).toISOString(),
    };
  }

  return {
    name: 'api-pix',

    /**
     * Derived from the charge id (`pix_` + 24 → 27 characters), or from the retry key so that a
     * request retried after a PSP timeout PUTs the same cob instead of a second one.
     */
    txidFor(chargeId, retryKey) {
      return retryKey === null ? chargeId.replace('_', '') : `k${retryKey.slice(0, 34)}`;
    },

    async createCharge(request: CobRequest): Promise<Cob> {
      const body: CobSolicitada = {
        calendario: { expiracao: request.expiresIn },
        valor: { original: valorOf(request.amountCents) },
        chave,
        ...(request.description !== null && {
          solicitacaoPagador: [...request.description].slice(0, SOLICITACAO_MAX).join(''),
        }),
        ...devedorOf(request.customer),
      };
      const cob = await client.putCob(request.txid, body).catch(async (error: unknown) => {
        // A retry after a timeout reuses the txid (derived from the Idempotency-Key). A PSP that refuses
        // a txid it already holds is answered by the cob our first, unanswered request created: taken
        // when it is the same charge (ATIVA, same amount and key), never when anything differs.
        if (!(error instanceof ProviderError) || !TXID_TAKEN_STATUSES.has(error.pspStatus ?? 0)) throw error;
        const held = await client.getCob(request.txid).catch(() => null);
        if (held?.status === 'ATIVA' && held.valor.original === body.valor.original && held.chave === chave) {
          return held;
        }
        throw error;
      });
      const copyPaste = cob?.pixCopiaECola;
      if (typeof copyPaste !== 'string') {
        throw new ProviderError(`The PSP created cob ${request.txid} but sent no pixCopiaECola.`);
      }
      checkCopyPaste(copyPaste, request.amountCents);
      return { txid: request.txid, copyPaste, location: cob.location ?? null };
    },

    async getCharge(txid, amountCents) {
      const cob = await client.getCob(txid);
      return { status: cob.status, payment: paymentOf(cob, txid, amountCents) };
    },

    async cancelCharge(txid, amountCents): Promise<CancelOutcome> {
      try {
        const cob = await client.removeCob(txid);
        if (cob?.status === 'REMOVIDA_PELO_USUARIO_RECEBEDOR' || cob?.status === 'REMOVIDA_PELO_PSP') {
          return { removed: true };
        }
      } catch (error) {
        // A 4xx may mean "no longer ATIVA": the cob's state says which; anything else is the PSP's failure.
        if (!(error instanceof ProviderError) || error.pspStatus === null || error.pspStatus >= 500)
          throw error;
      }
      const cob = await client.getCob(txid);
      if (cob.status === 'REMOVIDA_PELO_USUARIO_RECEBEDOR' || cob.status === 'REMOVIDA_PELO_PSP') {
        return { removed: true };
      }
      if (cob.status === 'CONCLUIDA') return { removed: false, payment: paymentOf(cob, txid, amountCents) };
      throw new ProviderError(`The PSP did not remove cob ${txid}; it is still ${cob.status}.`);
    },

    async refund(request: DevolucaoRequest): Promise<Devolucao> {
      return devolucaoOf(
        await client.putDevolucao(request.endToEndId, request.refundId, valorOf(request.amountCents)),
        request.refundId,
      );
    },

    async getRefund(endToEndId, refundId) {
      return devolucaoOf(await client.getDevolucao(endToEndId, refundId), refundId);
    },

    registerWebhook: (webhookUrl) => client.putWebhook(chave, webhookUrl),

    async listRecentCharges(sinceMs) {
      const fim = new Date();
      const list = await client.listCobs(new Date(fim.getTime() - sinceMs).toISOString(), fim.toISOString());
      if (!Array.isArray(list?.cobs))
        throw new ProviderError('The PSP answered GET /cob without a cobs list.');
      return list.cobs.length;
    },

    close: () => client.close(),
  };
}

/** `devedor` only with a document and a name: the standard needs both, cpf (11) or cnpj (14). */
function devedorOf(customer: Customer | null): { devedor?: Devedor } {
  if (!customer?.document || !customer.name) return {};
  const nome = customer.name;
  return {
    devedor:
      customer.document.length === 11 ? { cpf: customer.document, nome } : { cnpj: customer.document, nome },
  };
}

/** The payer scans what we show: it must be a valid BR Code (CRC) for exactly this amount. */
function checkCopyPaste(copyPaste: string, amountCents: number): void {
  let amount: number | undefined;
  try {
    amount = parseBrCode(copyPaste).amount;
  } catch (error) {
    const reason = error instanceof BrCodeError ? error.message : String(error);
    throw new ProviderError(`The PSP sent a pixCopiaECola that is not a valid BR Code: ${reason}.`);
  }
  if (amount === undefined || Math.round(amount * 100) !== amountCents) {
    throw new ProviderError(
      `The PSP sent a pixCopiaECola for ${amount ?? 'an open'} amount instead of ${valorOf(amountCents)}.`,
    );
  }
}

function devolucaoOf(devolucao: PspDevolucao, refundId: string): Devolucao {
  const status = devolucao?.status;
  if (status !== 'EM_PROCESSAMENTO' && status !== 'DEVOLVIDO' && status !== 'NAO_REALIZADO') {
    throw new ProviderError(`The PSP answered refund ${refundId} with an unknown status.`);
  }
  return { refundId, status, reason: typeof devolucao.motivo === 'string' ? devolucao.motivo : null };
}
