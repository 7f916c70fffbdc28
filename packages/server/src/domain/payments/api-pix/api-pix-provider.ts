import { parseBrCode } from '../../../platform/brcode/index.js';
import type { Customer } from '../../kernel/customer.js';
import type {
  CancelOutcome,
  Cob,
  CobRequest,
  Devolucao,
  DevolucaoRequest,
  ReceivedPix,
} from '../pix-provider.js';
import type { LivePixProvider } from '../live-pix-provider.js';
import type { RecurringPixProvider } from '../recurring-provider.js';
import type { ApiPixClient } from './api-pix-client.js';
import { apiPixRecurring } from './api-pix-recurring.js';
import type { ReceivingAccount } from './receiving-account.js';
import { centsOf, valorOf } from './api-pix-types.js';
import type { CobCompleta, CobSolicitada, Devedor, Devolucao as PspDevolucao } from './api-pix-types.js';
import { ProviderError } from '../provider-errors.js';
import { TXID_TAKEN_STATUSES, checkedCode, cutTo, devedorOf, paymentAmong } from './psp-answer-checks.js';

const SOLICITACAO_MAX = 140;

/**
 * A PixProvider over one PSP's API Pix for one store, whose Pix key (`chave`) is fixed. Nothing the
 * PSP sends is taken on trust: the copy-and-paste code is parsed (CRC) and its amount checked, and a
 * payment counts only when the cob is CONCLUIDA, to our key, for the charge's amount.
 */
export function apiPixProvider(
  client: ApiPixClient,
  chave: string,
  account: ReceivingAccount | null,
): LivePixProvider {
  const charges = apiPixCharges(client, chave);
  return {
    ...apiPixRecurring(client, charges.createCharge, account),
    ...charges,
    async registerRecurringWebhooks(webhookUrl) {
      try {
        await client.putWebhookRec(webhookUrl);
        await client.putWebhookCobr(webhookUrl);
        return true;
      } catch (error) {
        if (error instanceof ProviderError && NOT_OFFERED_STATUSES.has(error.pspStatus ?? 0)) return false;
        throw error;
      }
    },
  };
}

/** A PSP without Pix Automático (or credentials without its scopes) answers these to its endpoints. */
const NOT_OFFERED_STATUSES = new Set([403, 404]);

/** Immediate charges (`cob`), their refunds and the plain webhook. */
function apiPixCharges(
  client: ApiPixClient,
  chave: string,
): Omit<LivePixProvider, keyof RecurringPixProvider | 'registerRecurringWebhooks'> & { name: 'api-pix' } {
  function paymentOf(cob: CobCompleta, txid: string, amountCents: number): ReceivedPix | null {
    if (cob.status !== 'CONCLUIDA' || cob.chave !== chave || centsOf(cob.valor?.original) !== amountCents) {
      return null;
    }
    return paymentAmong(cob.pix, txid, amountCents);
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
          solicitacaoPagador: cutTo(request.description, SOLICITACAO_MAX),
        }),
        ...optionalDevedor(request.customer),
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
      checkedCode(parseBrCode, copyPaste, request.amountCents, 'a pixCopiaECola');
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
function optionalDevedor(customer: Customer | null): { devedor?: Devedor } {
  if (!customer?.document || !customer.name) return {};
  return { devedor: devedorOf(customer.document, customer.name) };
}

function devolucaoOf(devolucao: PspDevolucao, refundId: string): Devolucao {
  const status = devolucao?.status;
  if (status !== 'EM_PROCESSAMENTO' && status !== 'DEVOLVIDO' && status !== 'NAO_REALIZADO') {
    throw new ProviderError(`The PSP answered refund ${refundId} with an unknown status.`);
  }
  return { refundId, status, reason: typeof devolucao.motivo === 'string' ? devolucao.motivo : null };
}
