import type { Customer } from '../kernel/customer.js';
import type { PixReceiver } from '../../platform/brcode/index.js';
import type { ReceivedPix } from './pix-provider.js';

/**
 * What subscriptions need from a Pix service provider: the Banco Central's Pix Automático, in the
 * standard API Pix (2.7+). Test keys are served by `simulatedRecurringProvider`; live keys by the
 * store's PSP over the API Pix, which implements this next to `PixProvider` (`LivePixProvider`);
 * `PaymentProviders.recurring` gives the one for a key's mode.
 *
 * - `createSubscriptionCharge` ≈ Jornada 3: `POST /locrec`, `PUT /cob/{txid}` (the first period's
 *   amount), `POST /rec` (with `ativacao.dadosJornada.txid` and `loc`), then
 *   `GET /rec/{idRec}?txid=` whose `dadosQR.pixCopiaECola` is the composite code (pays the first
 *   charge and authorises the recurrence in one QR). The code must be checked (CRC, amount) before
 *   it is returned, as `PixProvider.createCharge` does. Each step the PSP answered is handed to
 *   `progress.save` before the next call, and a retried creation passes what was saved in
 *   `progress.held`: the provider reuses it (looking up a rec whose answer was lost, `GET /locrec`)
 *   and never makes a second authorisation for one subscription.
 * - `scheduleCycleCharge` ≈ `PUT /cobr/{txid}`: one cycle's charge on the authorisation, sent 2 to
 *   10 days before its due date. The txid comes from `cycleTxid` (cycle-txid.ts), so a retried PUT (a crash between
 *   the call and our write) is the same cobr, never a second one.
 * - `requestRetry` ≈ `POST /cobr/{txid}/retentativa/{data}`, only when the authorisation allows
 *   retries (`PERMITE_3R_7D`).
 * - `cancelAuthorisation` ≈ `PATCH /rec/{idRec}` `{"status":"CANCELADA"}`.
 * - `getAuthorisation` ≈ `GET /rec/{idRec}`; `getCycleCharge` ≈ `GET /cobr/{txid}`: callbacks are
 *   never trusted, every change is confirmed by these reads.
 *
 * What a confirmed outcome does to a subscription is not the provider's business: the live side
 * (callbacks on `/rec` and `/cobr`, the reconciler) calls the functions of `subscription-outcomes.ts`
 * exactly as test mode's simulate operations do:
 *
 * - `payCycle(db, cycle: SubscriptionCyclesTable, received: ReceivedPix, mail)`: a cobr `CONCLUIDA`
 *   → the cycle's sale, the period advances, `subscription.renewed` (once: a conditional update).
 * - `failCycleAttempt(db, cycle: SubscriptionCyclesTable, today: 'YYYY-MM-DD')`: an attempt failed
 *   → `past_due` (retries left) or `canceled` (`payment_failed`).
 * - `endAuthorisation(db, subscription: SubscriptionsTable, reason: 'buyer' | 'psp')`: the `rec`
 *   became `CANCELADA`/`REJEITADA` at the PSP → `canceled`.
 * - `findCycleByTxid(db, storeId, txid)`, `findSubscriptionByIdRec(db, storeId, idRec)`: what a
 *   callback names. Rows to poll: `subscription_cycles.next_check_at` and
 *   `subscriptions.next_check_at` (live only; null in test mode), claimed like pending charges.
 *
 * The first charge's payment goes through the one pay path of every charge (`payCharge`), which
 * activates its subscription (cycle 1).
 */
export interface RecurringPixProvider {
  readonly name: string;
  /**
   * Throws 400 `provider_not_configured` when this provider cannot bill a subscription (a live store
   * without its receiving account). Called before anything is written or sent.
   */
  checkCanBill(): void;
  createSubscriptionCharge(request: SubscriptionChargeRequest): Promise<SubscriptionCharge>;
  scheduleCycleCharge(request: CycleChargeRequest): Promise<CycleCharge>;
  /** `data` is the day of the new attempt, `YYYY-MM-DD`. */
  requestRetry(txid: string, data: string): Promise<void>;
  cancelAuthorisation(idRec: string): Promise<void>;
  getAuthorisation(idRec: string): Promise<AuthorisationAtPsp>;
  getCycleCharge(txid: string, amountCents: number): Promise<CycleChargeAtPsp>;
}

/** `periodicidade` of `calendario` in `POST /rec`: our `recorrencia` in capitals. */
export type Periodicidade = 'SEMANAL' | 'MENSAL' | 'TRIMESTRAL' | 'SEMESTRAL' | 'ANUAL';

/** `politicaRetentativa` of `POST /rec`: from the subscription's `retry_policy`. */
export type PoliticaRetentativa = 'NAO_PERMITE' | 'PERMITE_3R_7D';

/** Jornada 3: the first charge (`PUT /cob/{txid}`) and the authorisation (`POST /rec`) in one QR. */
export interface SubscriptionChargeRequest {
  /** The first charge's txid (`ativacao.dadosJornada.txid`), as `PixProvider.txidFor` gives it. */
  txid: string;
  /** `vinculo.contrato`: our subscription id (at most 35 characters). */
  subscriptionId: string;
  /** `vinculo.objeto`: the product's name, cut to the standard's 35 characters. */
  objeto: string;
  /** `vinculo.devedor`: name and CPF/CNPJ are required for a subscription. */
  customer: Customer;
  /** `calendario.dataInicial`, `YYYY-MM-DD`: today in the store's timezone. */
  dataInicial: string;
  periodicidade: Periodicidade;
  /** `valor.valorRec`, and the first cob's `valor.original`. */
  amountCents: number;
  politicaRetentativa: PoliticaRetentativa;
  /** The first cob's `calendario.expiracao`, seconds. */
  expiresIn: number;
  /** The first cob's `solicitacaoPagador`. */
  description: string | null;
  receiver: PixReceiver;
  progress: CreationProgress;
}

/** What the PSP holds of a creation so far: its location (`POST /locrec`) and its rec (`POST /rec`). */
export interface CreationHeld {
  loc: { id: number; location: string } | null;
  idRec: string | null;
}

/** A creation's steps at the PSP, saved as they are answered (table `subscription_creations`). */
export interface CreationProgress {
  /** What an earlier try of this creation got the PSP to hold (nothing on a first try). */
  held: CreationHeld;
  save(step: Partial<CreationHeld>): Promise<void>;
}

export interface SubscriptionCharge {
  txid: string;
  /** `idRec` of the authorisation the PSP created. */
  idRec: string;
  /** `dadosQR.pixCopiaECola` of `GET /rec/{idRec}?txid=`: the composite code, checked. */
  copyPaste: string;
  /** The cob's `location`, or null for a static code (test mode). */
  location: string | null;
}

/** `PUT /cobr/{txid}`. */
export interface CycleChargeRequest {
  txid: string;
  idRec: string;
  /** `calendario.dataDeVencimento`, `YYYY-MM-DD` (sent with `ajusteDiaUtil: true`). */
  dueDate: string;
  /** `valor.original`. */
  amountCents: number;
  /** `devedor`. */
  customer: Customer;
  receiver: PixReceiver;
}

export interface CycleCharge {
  txid: string;
  /** The cobr's status as the PSP answered it (`CRIADA`, `ATIVA`, …). */
  status: CobrStatus;
}

/** `status` of a `rec` in the standard. */
export type RecStatus = 'CRIADA' | 'APROVADA' | 'REJEITADA' | 'EXPIRADA' | 'CANCELADA';

/** `status` of a `cobr` in the standard. */
export type CobrStatus = 'CRIADA' | 'ATIVA' | 'CONCLUIDA' | 'EXPIRADA' | 'REJEITADA' | 'CANCELADA';

export interface AuthorisationAtPsp {
  status: RecStatus;
  /** Who ended it, when `CANCELADA`/`REJEITADA`: the payer (buyer) or a PSP. */
  endedBy: 'buyer' | 'psp' | null;
}

export interface CycleChargeAtPsp {
  status: CobrStatus;
  /** The received Pix that pays the cycle in full, when `CONCLUIDA`. */
  payment: ReceivedPix | null;
  /** Whether the last attempt failed (the payer's account could not pay): `tentativas[].status`. */
  attemptFailed: boolean;
}
