import type { Devolucao, PixProvider, ReceivedPix } from './pix-provider.js';
import type { RecurringPixProvider } from './recurring-provider.js';

/** `status` of a `cob` in the standard. */
export type CobStatus = 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';

/** What the PSP says about a cob, reduced to what decides a charge's fate. */
export interface ChargeAtPsp {
  status: CobStatus;
  /** The received Pix that pays the charge in full, to our key, when the cob is CONCLUIDA. */
  payment: ReceivedPix | null;
}

/**
 * A store's Pix provider at a real PSP (live keys): charges and Pix Automático, plus the reads the
 * reconciler confirms every change by (a callback is never trusted), the operator's setup calls
 * (`pix-provider check`, `register-webhook`, the dashboard's "Testar conexão"), and its connections.
 */
export interface LivePixProvider extends PixProvider, RecurringPixProvider {
  /** `GET /cob/{txid}`. */
  getCharge(txid: string, amountCents: number): Promise<ChargeAtPsp>;
  /** `GET /pix/{e2eid}/devolucao/{id}`. */
  getRefund(endToEndId: string, refundId: string): Promise<Devolucao>;
  /** `PUT /webhook/{chave}`. */
  registerWebhook(webhookUrl: string): Promise<void>;
  /**
   * `PUT /webhookrec` and `PUT /webhookcobr` with the same URL (the PSP appends `/rec`, `/cobr`).
   * Returns false when the PSP does not offer Pix Automático to these credentials (404 or 403).
   */
  registerRecurringWebhooks(webhookUrl: string): Promise<boolean>;
  /** `GET /cob?inicio&fim`: proves credentials, certificate and scopes work; returns how many cobs. */
  listRecentCharges(sinceMs: number): Promise<number>;
  close(): Promise<void>;
}
