import { randomBase62 } from '../../../platform/values/ids.js';
import { nowIso } from '../../../platform/values/time.js';
import { fromCents, toCents } from '../../../platform/values/money.js';
import { buildBrCode } from '../../../platform/brcode/index.js';
import type {
  CancelOutcome,
  Cob,
  CobRequest,
  Devolucao,
  DevolucaoRequest,
  PixProvider,
  ReceivedPix,
} from '../pix-provider.js';

/** ISPB shown in simulated end-to-end ids: 8 zeros, no real participant. */
const SIMULATED_ISPB = '00000000';

/**
 * Serves test keys: no PSP and no money. A charge is a static BR Code (key, amount, txid in field
 * 62-05) built locally, so it stays a real, parseable code without a hosted `location`; payments
 * arrive through `receivedPixCallback`, in the same shape a PSP's callback has.
 */
export const simulatedPixProvider: PixProvider & {
  receivedPixCallback(txid: string, amountCents: number): unknown;
  parseReceivedPix(body: unknown): ReceivedPix[];
} = {
  name: 'simulated',

  /** The charge id's 24 random characters: unique, and within the 25 that field 62-05 holds. */
  txidFor(chargeId) {
    return chargeId.replace(/^pix_/, '');
  },

  async createCharge(request: CobRequest): Promise<Cob> {
    const copyPaste = buildBrCode({
      pixKey: request.receiver.pixKey,
      merchantName: request.receiver.merchantName,
      merchantCity: request.receiver.merchantCity,
      amount: fromCents(request.amountCents),
      txid: request.txid,
    });
    return { txid: request.txid, copyPaste, location: null };
  },

  /** A callback body as a PSP would POST it for one payment of `amountCents` to `txid`. */
  receivedPixCallback(txid, amountCents) {
    const endToEndId = `E${SIMULATED_ISPB}${nowIso().replace(/\D/g, '').slice(0, 12)}${randomBase62(11)}`;
    return { pix: [{ endToEndId, txid, valor: fromCents(amountCents).toFixed(2), horario: nowIso() }] };
  },

  parseReceivedPix(body): ReceivedPix[] {
    const items = (body as { pix?: unknown } | null)?.pix;
    if (!Array.isArray(items)) throw new Error('received-Pix callback without a "pix" array');
    return items.map((item: Record<string, unknown>) => {
      const { endToEndId, txid, valor, horario } = item;
      if (typeof endToEndId !== 'string' || typeof txid !== 'string' || typeof horario !== 'string') {
        throw new Error('received-Pix item without endToEndId, txid or horario');
      }
      if (typeof valor !== 'string' || !/^\d{1,10}\.\d{2}$/.test(valor)) {
        throw new Error('received-Pix item with a malformed valor');
      }
      return {
        endToEndId,
        txid,
        amountCents: toCents(Number(valor)),
        paidAt: new Date(horario).toISOString(),
      };
    });
  },

  /** Nothing exists outside the database, so there is nothing to remove. */
  async cancelCharge(): Promise<CancelOutcome> {
    return { removed: true };
  },

  async refund(request: DevolucaoRequest): Promise<Devolucao> {
    return { refundId: request.refundId, status: 'DEVOLVIDO', reason: null };
  },
};
