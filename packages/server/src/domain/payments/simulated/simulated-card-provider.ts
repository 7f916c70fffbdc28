import { invalidRequest } from '../../../platform/http/api-error.js';
import { CARD_DECLINE_CODES, isCardDeclineCode } from '../../kernel/card-outcome.js';
import type { CardDeclineCode } from '../../kernel/card-outcome.js';
import type { CardChargeRequest, CardDetails, CardOutcome, CardProvider } from '../card-provider.js';
import { installmentTable } from '../installment-table.js';

/** The test tokens the simulated provider knows, each naming its outcome. */
export const SIMULATED_CARD_TOKENS = {
  approved: 'tok_test_approved',
  threeDSecure: 'tok_test_3ds',
  processing: 'tok_test_processing',
  /** Followed by a normalised decline code: `tok_test_declined_insufficient_funds`. */
  declinedPrefix: 'tok_test_declined_',
} as const;

/** A plausible card, the same every time: a test payment never shows a real number's digits. */
const TEST_CARD: CardDetails = { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034 };

const outcome = (pspId: string, status: CardOutcome['status'], decline?: CardDeclineCode): CardOutcome => ({
  pspId,
  pspChargeId: null,
  status,
  decline: decline === undefined ? null : { code: decline, providerCode: null },
  card: TEST_CARD,
  authorizationCode: status === 'approved' ? 'SIM000' : null,
  challenge: null,
});

/** The outcome a test token asks for; any other token is the caller's mistake (400 on `card.token`). */
function outcomeOfToken(request: CardChargeRequest): CardOutcome {
  const { token, paymentId } = request;
  if (token === SIMULATED_CARD_TOKENS.approved) return outcome(paymentId, 'approved');
  if (token === SIMULATED_CARD_TOKENS.threeDSecure) return outcome(paymentId, 'requires_action');
  if (token === SIMULATED_CARD_TOKENS.processing) return outcome(paymentId, 'processing');
  if (token.startsWith(SIMULATED_CARD_TOKENS.declinedPrefix)) {
    const code = token.slice(SIMULATED_CARD_TOKENS.declinedPrefix.length);
    if (isCardDeclineCode(code)) return outcome(paymentId, 'declined', code);
  }
  throw invalidRequest(
    `Test mode takes the simulated card tokens only: ${SIMULATED_CARD_TOKENS.approved}, ${SIMULATED_CARD_TOKENS.threeDSecure}, ${SIMULATED_CARD_TOKENS.processing} or ${SIMULATED_CARD_TOKENS.declinedPrefix}<code> (${CARD_DECLINE_CODES.join(', ')}).`,
    'card.token',
  );
}

/**
 * Serves test mode when the store has no test PSP: no PSP, no money, no card fields. The token
 * names the outcome, and what a PSP would decide later arrives through `settle` (the simulate_*
 * calls), in the outcome shape a live payment's read-back has, so both take the same path.
 */
export const simulatedCardProvider: CardProvider & {
  settle(
    pspId: string,
    result: 'approved' | 'declined' | 'authentication_failed' | 'charged_back',
  ): CardOutcome;
} = {
  name: 'simulated',
  publicKey: null,

  async createPayment(request) {
    return outcomeOfToken(request);
  },

  settle(pspId, result) {
    if (result === 'declined') return outcome(pspId, 'declined', 'issuer_declined');
    if (result === 'authentication_failed') return outcome(pspId, 'declined', 'authentication_failed');
    return outcome(pspId, result);
  },

  /** Nothing exists outside the database: a simulated payment only moves through `settle`. */
  async getPayment(ref) {
    throw new Error(
      `simulated card payment ${ref.pspId} has no PSP to read back; it moves by simulate_* calls`,
    );
  },

  async refund() {
    return { status: 'succeeded', reason: null };
  },

  async installmentOptions(query) {
    return installmentTable(query.amountCents, query.policy);
  },

  /** No PSP sends notifications for simulated payments. */
  readNotification() {
    return null;
  },

  async close() {},
};
