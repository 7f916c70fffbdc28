import type { Customer } from '../kernel/customer.js';
import type { PixReceiver } from '../../platform/brcode/index.js';

/**
 * What the charges code needs from a Pix service provider (PSP). It follows the Banco Central's
 * standard API Pix, so the live provider is a thin client over it:
 *
 * - `createCharge` ≈ `PUT /cob/{txid}` (immediate charge): the caller picks the txid, which makes a
 *   retried PUT idempotent; the PSP answers the `location` and `pixCopiaECola`.
 * - `cancelCharge` ≈ `PATCH /cob/{txid}` to `REMOVIDA_PELO_USUARIO_RECEBEDOR`; a cob already paid
 *   cannot be removed, and the payment found instead is returned.
 * - `refund` ≈ `PUT /pix/{e2eid}/devolucao/{id}`: returns a received Pix to the payer.
 */
export interface PixProvider {
  readonly name: string;
  /**
   * The txid of a new charge: `[A-Za-z0-9]{26,35}` for `/cob`, at most 25 in a static code's field
   * 62-05. `retryKey` (a digest of the request's Idempotency-Key) makes a retried request reuse it.
   */
  txidFor(chargeId: string, retryKey: string | null): string;
  createCharge(request: CobRequest): Promise<Cob>;
  cancelCharge(txid: string, amountCents: number): Promise<CancelOutcome>;
  refund(request: DevolucaoRequest): Promise<Devolucao>;
}

/** The body of `PUT /cob/{txid}` in our terms. */
export interface CobRequest {
  txid: string;
  /** `valor.original`. */
  amountCents: number;
  /** `calendario.expiracao`, seconds. */
  expiresIn: number;
  /** `solicitacaoPagador`, shown to the payer (cut to 140 characters). */
  description: string | null;
  /** `chave` of the receiver, with the name and city a BR Code shows. */
  receiver: PixReceiver;
  /** `devedor` when it has a document and a name. */
  customer: Customer | null;
}

export interface Cob {
  txid: string;
  /** `pixCopiaECola`: the EMV BR Code. */
  copyPaste: string;
  /** `location` of a dynamic code (payload URL without scheme), null for a static code. */
  location: string | null;
}

/** One received Pix paying a charge, as confirmed by the provider. */
export interface ReceivedPix {
  /** `endToEndId`: the payment's id across the Pix system, needed to refund it. */
  endToEndId: string;
  txid: string;
  amountCents: number;
  /** `horario`, ISO 8601. */
  paidAt: string;
}

/** Removed at the PSP, or found paid (with the payment, when it matches the charge). */
export type CancelOutcome = { removed: true } | { removed: false; payment: ReceivedPix | null };

export interface DevolucaoRequest {
  endToEndId: string;
  /** Our id for the refund, `[A-Za-z0-9]{1,35}`: retrying the same PUT does not refund twice. */
  refundId: string;
  amountCents: number;
}

export interface Devolucao {
  refundId: string;
  status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
  /** The PSP's `motivo`, when it gives one. */
  reason: string | null;
}
