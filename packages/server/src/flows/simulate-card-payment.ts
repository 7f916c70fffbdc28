import type { Kysely } from 'kysely';
import type { DeliveryMail } from '../domain/accounts/test-mail-policy.js';
import type { CardPayment, CardPaymentsTable } from '../domain/card-payments/card-payment-object.js';
import { simulatedCardProvider } from '../domain/payments/simulated/simulated-card-provider.js';
import type { Database } from '../platform/db/schema.js';
import { invalidRequest } from '../platform/http/api-error.js';
import { applyCardOutcome } from './apply-card-outcome.js';

/*
 * Test mode's stand-ins for the buyer and the issuer of a simulated card payment, shared by the API
 * and the test 3-D Secure page. Each makes the outcome a PSP would report and applies it through the
 * path a live read-back takes. Callers refuse live payments before calling.
 */

type Links = { mail: DeliveryMail; publicUrl: string };

function simulatedOnly(row: CardPaymentsTable): void {
  if (row.provider !== 'simulated')
    throw invalidRequest(
      `This card payment is at ${row.provider}, whose own test environment decides it; only simulated payments move by simulate_* calls.`,
    );
}

/** The buyer authenticates (→ approved, with its sale) or fails (→ declined `authentication_failed`). */
export async function simulateThreeDSecure(
  db: Kysely<Database>,
  row: CardPaymentsTable,
  result: 'authenticated' | 'failed',
  links: Links,
): Promise<CardPayment> {
  simulatedOnly(row);
  if (row.status !== 'requires_action')
    throw invalidRequest(
      `This card payment is ${row.status}; only one that requires_action can authenticate.`,
    );
  const outcome = simulatedCardProvider.settle(
    row.id,
    result === 'authenticated' ? 'approved' : 'authentication_failed',
  );
  return (await applyCardOutcome(db, row, outcome, links)).payment;
}

/** The issuer decides a processing payment: approved (with its sale) or declined `issuer_declined`. */
export async function simulateSettlement(
  db: Kysely<Database>,
  row: CardPaymentsTable,
  result: 'approved' | 'declined',
  links: Links,
): Promise<CardPayment> {
  simulatedOnly(row);
  if (row.status !== 'processing')
    throw invalidRequest(`This card payment is ${row.status}; only a processing one can be settled.`);
  return (await applyCardOutcome(db, row, simulatedCardProvider.settle(row.id, result), links)).payment;
}

/** The buyer disputes an approved payment and wins: its sale is charged back, the payment stays approved. */
export async function simulateChargeback(
  db: Kysely<Database>,
  row: CardPaymentsTable,
  links: Links,
): Promise<CardPayment> {
  simulatedOnly(row);
  if (row.status !== 'approved')
    throw invalidRequest(`This card payment is ${row.status}; only an approved one can be charged back.`);
  return (await applyCardOutcome(db, row, simulatedCardProvider.settle(row.id, 'charged_back'), links))
    .payment;
}
