import { parseCompositeBrCode } from '../../../platform/brcode/index.js';
import type { Customer } from '../../kernel/customer.js';
import type { PixProvider, ReceivedPix } from '../pix-provider.js';
import type {
  AuthorisationAtPsp,
  CobrStatus,
  CycleChargeAtPsp,
  RecStatus,
  RecurringPixProvider,
  SubscriptionCharge,
  SubscriptionChargeRequest,
} from '../recurring-provider.js';
import { invalidRequest } from '../../../platform/http/api-error.js';
import type { ApiPixClient } from './api-pix-client.js';
import type { CobRCompleta, CobRSolicitada, RecCompleta, RecSolicitada } from './api-pix-rec-types.js';
import { centsOf, valorOf } from './api-pix-types.js';
import type { Devedor } from './api-pix-types.js';
import { ProviderError, receivingAccountMissing } from '../provider-errors.js';
import { recebedorOf } from './receiving-account.js';
import type { DadosBancariosRecebedor, ReceivingAccount } from './receiving-account.js';
import { TXID_TAKEN_STATUSES, checkedCode, cutTo, devedorOf, paymentAmong } from './psp-answer-checks.js';

/** `vinculo.contrato` and `vinculo.objeto` are at most 35 characters in the standard. */
const VINCULO_MAX = 35;
/** `vinculo.devedor.nome` of a recurrence: at most 140. */
const DEVEDOR_NOME_MAX = 140;
const ID_REC = /^[a-zA-Z0-9]{29}$/;
const REC_STATUSES: readonly RecStatus[] = ['CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA'];
const COBR_STATUSES: readonly CobrStatus[] = [
  'CRIADA',
  'ATIVA',
  'CONCLUIDA',
  'EXPIRADA',
  'REJEITADA',
  'CANCELADA',
];

/**
 * Pix Automático over one PSP's API Pix for one store. The first charge and the authorisation go out
 * as Jornada 3 (`POST /locrec`, `PUT /cob`, `POST /rec`, `GET /rec?txid=`); the composite code the
 * PSP answers is only shown once it is a valid BR Code for the amount that points at both the cob
 * and the rec we just created. Later reads (`GET /rec`, `GET /cobr`) are what decides an outcome,
 * never a callback. Every cycle charge names the store's receiving `account` (`recebedor`): without
 * one nothing is billed and no PSP call is made.
 */
export function apiPixRecurring(
  client: ApiPixClient,
  createCharge: PixProvider['createCharge'],
  account: ReceivingAccount | null,
): RecurringPixProvider {
  function recebedor(): DadosBancariosRecebedor {
    if (account === null) throw receivingAccountMissing();
    return recebedorOf(account);
  }

  return {
    name: 'api-pix',

    checkCanBill() {
      recebedor();
    },

    async createSubscriptionCharge(request: SubscriptionChargeRequest): Promise<SubscriptionCharge> {
      // The authorisation is only worth making when its cycles can be billed.
      recebedor();
      const devedor = recDevedorOf(request.customer);
      const { held, save } = request.progress;
      let loc = held.loc;
      if (loc === null) {
        const made = await client.postLocrec();
        if (!Number.isInteger(made?.id) || typeof made.location !== 'string') {
          throw new ProviderError('The PSP answered POST /locrec without a location id.');
        }
        loc = { id: made.id, location: made.location };
        await save({ loc });
      }
      // The same txid as an earlier try: the PSP's cob is that try's (see createCharge).
      const cob = await createCharge({
        txid: request.txid,
        amountCents: request.amountCents,
        expiresIn: request.expiresIn,
        description: request.description,
        receiver: request.receiver,
        customer: request.customer,
      });
      const body: RecSolicitada = {
        vinculo: {
          contrato: cutTo(request.subscriptionId, VINCULO_MAX),
          devedor,
          objeto: cutTo(request.objeto, VINCULO_MAX),
        },
        calendario: { dataInicial: request.dataInicial, periodicidade: request.periodicidade },
        valor: { valorRec: valorOf(request.amountCents) },
        politicaRetentativa: request.politicaRetentativa,
        loc: loc.id,
        ativacao: { dadosJornada: { txid: request.txid } },
      };
      // A location from an earlier try may already carry the rec that try made (its answer lost to a
      // timeout or a 5xx): the standard's GET /locrec/{id} names it, and that rec is this one.
      let idRec = held.idRec ?? (held.loc === null ? null : await recOfLocation(client, loc.id));
      if (idRec === null) {
        const rec = await client.postRec(body);
        if (typeof rec?.idRec !== 'string' || !ID_REC.test(rec.idRec)) {
          throw new ProviderError('The PSP answered POST /rec without a valid idRec.');
        }
        idRec = rec.idRec;
      }
      if (idRec !== held.idRec) await save({ idRec });
      const withQr = await client.getRec(idRec, request.txid);
      if (withQr?.vinculo?.contrato !== body.vinculo.contrato) {
        throw new ProviderError(`The PSP's rec ${idRec} is not this subscription's authorisation.`);
      }
      const copyPaste = withQr?.dadosQR?.pixCopiaECola;
      if (typeof copyPaste !== 'string') {
        throw new ProviderError(`The PSP sent no composite code (dadosQR.pixCopiaECola) for rec ${idRec}.`);
      }
      checkComposite(copyPaste, request.amountCents, cob.location, loc.location);
      return { txid: cob.txid, idRec, copyPaste, location: cob.location };
    },

    async scheduleCycleCharge(request) {
      const body: CobRSolicitada = {
        idRec: request.idRec,
        calendario: { dataDeVencimento: request.dueDate },
        valor: { original: valorOf(request.amountCents) },
        ajusteDiaUtil: true,
        ...(request.customer.email !== undefined && { devedor: { email: request.customer.email } }),
        recebedor: recebedor(),
      };
      const cobr = await client.putCobr(request.txid, body).catch(async (error: unknown) => {
        // A PUT retried after a crash or a timeout: the cobr our first call created is this cycle's
        // when it is for the same rec and amount; anything else is the PSP's refusal.
        if (!(error instanceof ProviderError) || !TXID_TAKEN_STATUSES.has(error.pspStatus ?? 0)) throw error;
        const held = await client.getCobr(request.txid).catch(() => null);
        if (held?.idRec === body.idRec && held.valor?.original === body.valor.original) return held;
        throw error;
      });
      return { txid: request.txid, status: cobrStatusOf(cobr, request.txid) };
    },

    async requestRetry(txid, data) {
      await client.retryCobr(txid, data);
    },

    async cancelAuthorisation(idRec) {
      try {
        const rec = await client.cancelRec(idRec);
        if (rec?.status === 'CANCELADA') return;
      } catch (error) {
        // A 4xx may mean "already ended": the rec's state says which.
        if (!(error instanceof ProviderError) || error.pspStatus === null || error.pspStatus >= 500)
          throw error;
      }
      const rec = await client.getRec(idRec);
      if (rec?.status !== 'CANCELADA' && rec?.status !== 'REJEITADA' && rec?.status !== 'EXPIRADA') {
        throw new ProviderError(`The PSP did not cancel rec ${idRec}; it is still ${String(rec?.status)}.`);
      }
    },

    async getAuthorisation(idRec): Promise<AuthorisationAtPsp> {
      return authorisationOf(await client.getRec(idRec), idRec);
    },

    async getCycleCharge(txid, amountCents): Promise<CycleChargeAtPsp> {
      const cobr = await client.getCobr(txid);
      const status = cobrStatusOf(cobr, txid);
      const last = cobr.tentativas?.at(-1)?.status;
      return {
        status,
        payment: cyclePaymentOf(cobr, txid, amountCents),
        attemptFailed:
          status === 'REJEITADA' || status === 'EXPIRADA' || last === 'REJEITADA' || last === 'EXPIRADA',
      };
    },
  };
}

/** The rec a location is linked to (`GET /locrec/{id}`), or null when none is yet. */
async function recOfLocation(client: ApiPixClient, locId: number): Promise<string | null> {
  const loc = await client.getLocrec(locId);
  if (loc?.idRec === undefined) return null;
  if (typeof loc.idRec !== 'string' || !ID_REC.test(loc.idRec)) {
    throw new ProviderError(`The PSP answered GET /locrec/${locId} with an invalid idRec.`);
  }
  return loc.idRec;
}

/** The standard requires the debtor's document and name on a recurrence. */
function recDevedorOf(customer: Customer): Devedor {
  if (!customer.document || !customer.name) {
    throw invalidRequest('A subscription needs the customer’s name and CPF/CNPJ.', 'customer');
  }
  return devedorOf(customer.document, cutTo(customer.name, DEVEDOR_NOME_MAX));
}

/**
 * What the payer scans pays the first charge and authorises the recurrence: a valid composite BR Code
 * (CRC) for exactly this amount, whose charge location is our cob's and whose recurrence location
 * (field 80) is the locrec we asked for.
 */
function checkComposite(
  copyPaste: string,
  amountCents: number,
  cobLocation: string | null,
  recLocation: string,
): void {
  const code = checkedCode(parseCompositeBrCode, copyPaste, amountCents, 'a composite code');
  if (cobLocation !== null && code.url !== cobLocation) {
    throw new ProviderError('The PSP sent a composite code that does not point at the first charge.');
  }
  if (code.recurrenceUrl !== recLocation) {
    throw new ProviderError('The PSP sent a composite code that does not point at the recurrence.');
  }
}

function authorisationOf(rec: RecCompleta, idRec: string): AuthorisationAtPsp {
  if (!REC_STATUSES.includes(rec?.status)) {
    throw new ProviderError(`The PSP answered rec ${idRec} with an unknown status.`);
  }
  if (rec.status !== 'CANCELADA' && rec.status !== 'REJEITADA') return { status: rec.status, endedBy: null };
  // Refused by the payer (rejection AP13) or at the payer's PSP, or cancelled by whoever the standard
  // names; our own cancellation (USUARIO_RECEBEDOR) already ended the subscription, so it names nobody.
  const solicitante = rec.encerramento?.cancelamento?.solicitante;
  const endedBy =
    rec.status === 'REJEITADA'
      ? rec.encerramento?.rejeicao?.codigo === 'AP13'
        ? 'buyer'
        : 'psp'
      : solicitante === 'PSP_PAGADOR' || solicitante === 'PSP_RECEBEDOR'
        ? 'psp'
        : solicitante === 'USUARIO_PAGADOR'
          ? 'buyer'
          : null;
  return { status: rec.status, endedBy };
}

function cobrStatusOf(cobr: CobRCompleta, txid: string): CobrStatus {
  if (!COBR_STATUSES.includes(cobr?.status)) {
    throw new ProviderError(`The PSP answered cobr ${txid} with an unknown status.`);
  }
  return cobr.status;
}

/** The received Pix that pays the cycle in full, only when the cobr is CONCLUIDA for its amount. */
function cyclePaymentOf(cobr: CobRCompleta, txid: string, amountCents: number): ReceivedPix | null {
  if (cobr.status !== 'CONCLUIDA' || centsOf(cobr.valor?.original) !== amountCents) return null;
  return paymentAmong(cobr.pix, txid, amountCents);
}
