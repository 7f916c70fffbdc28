import type { PixReceiver } from '../pix-settings.js';

/**
 * What the charges code needs from a Pix service provider (PSP). It follows the Banco Central's
 * standard API Pix ("API Pix", BCB), so a live provider is a thin HTTP client over it:
 *
 * - `createCharge` ≈ `PUT /cob/{txid}` (immediate charge): the caller picks the txid, which makes a
 *   retried PUT idempotent; the PSP answers the `location` and `pixCopiaECola`.
 * - `parseReceivedPix` reads the PSP's received-Pix callback (`POST {webhookUrl}/pix`, body
 *   `{"pix":[{endToEndId, txid, valor, horario}]}`) into payments to apply to charges by txid.
 * - `refund` ≈ `PUT /pix/{e2eid}/devolucao/{id}`: returns a received Pix to the payer.
 */
export interface PixProvider {
  readonly name: string;
  /** txid rule of the provider: `[A-Za-z0-9]{26,35}` for `/cob`, at most 25 in a static code's field 62-05. */
  txidFor(chargeId: string): string;
  createCharge(request: CobRequest): Promise<Cob>;
  parseReceivedPix(body: unknown): ReceivedPix[];
  refund(request: DevolucaoRequest): Promise<Devolucao>;
}

/** The body of `PUT /cob/{txid}` in our terms. */
export interface CobRequest {
  txid: string;
  /** `valor.original`. */
  amountCents: number;
  /** `calendario.expiracao`, seconds. */
  expiresIn: number;
  /** `solicitacaoPagador`, shown to the payer (at most 140 characters). */
  description: string | null;
  /** `chave` of the receiver, with the name and city a BR Code shows. */
  receiver: PixReceiver;
}

export interface Cob {
  txid: string;
  /** `pixCopiaECola`: the EMV BR Code. */
  copyPaste: string;
  /** `location` of a dynamic code (payload URL without scheme), null for a static code. */
  location: string | null;
}

/** One item of a received-Pix callback. */
export interface ReceivedPix {
  /** `endToEndId`: the payment's id across the Pix system, needed to refund it. */
  endToEndId: string;
  txid: string;
  amountCents: number;
  /** `horario`, ISO 8601. */
  paidAt: string;
}

export interface DevolucaoRequest {
  endToEndId: string;
  /** Our id for the refund, `[A-Za-z0-9]{1,35}`: retrying the same PUT does not refund twice. */
  refundId: string;
  amountCents: number;
}

export interface Devolucao {
  refundId: string;
  status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
}
