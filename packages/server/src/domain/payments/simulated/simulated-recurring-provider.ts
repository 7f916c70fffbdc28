import { randomBase62 } from '../../../platform/values/ids.js';
import { simulatedPixProvider } from './simulated-pix-provider.js';
import type {
  AuthorisationAtPsp,
  CycleCharge,
  CycleChargeAtPsp,
  CycleChargeRequest,
  RecurringPixProvider,
  SubscriptionCharge,
  SubscriptionChargeRequest,
} from '../recurring-provider.js';

/** ISPB shown in simulated authorisation ids: 8 zeros, no real participant. */
const SIMULATED_ISPB = '00000000';

/**
 * Serves test keys: no PSP and no money. The first charge's code is the simulated provider's static
 * BR Code (a real, parseable code for the amount); authorisations and cycle charges exist only in our
 * database, and their outcomes come from the simulate operations, which call the same outcome
 * functions a PSP's confirmed answer does.
 */
export const simulatedRecurringProvider: RecurringPixProvider = {
  name: 'simulated',

  /** Test mode bills nobody's account. */
  checkCanBill() {},

  async createSubscriptionCharge(request: SubscriptionChargeRequest): Promise<SubscriptionCharge> {
    const cob = await simulatedPixProvider.createCharge({
      txid: request.txid,
      amountCents: request.amountCents,
      expiresIn: request.expiresIn,
      description: request.description,
      receiver: request.receiver,
      customer: request.customer,
    });
    // `RR` + ISPB + the creation day + 11 characters, the shape of the standard's idRec.
    const idRec = `RR${SIMULATED_ISPB}${request.dataInicial.replace(/-/g, '')}${randomBase62(11)}`;
    return { txid: cob.txid, idRec, copyPaste: cob.copyPaste, location: null };
  },

  async scheduleCycleCharge(request: CycleChargeRequest): Promise<CycleCharge> {
    return { txid: request.txid, status: 'ATIVA' };
  },

  /** Nothing exists outside the database: a retry is the next simulated outcome. */
  async requestRetry() {},

  async cancelAuthorisation() {},

  async getAuthorisation(): Promise<AuthorisationAtPsp> {
    return { status: 'APROVADA', endedBy: null };
  },

  async getCycleCharge(): Promise<CycleChargeAtPsp> {
    return { status: 'ATIVA', payment: null, attemptFailed: false };
  },
};
