import type { Migration } from 'kysely';
import * as foundation from './0001-foundation.js';
import * as products from './0002-products.js';
import * as webhooks from './0003-webhooks.js';
import * as pixSales from './0004-pix-sales.js';
import * as deliveryErrors from './0005-delivery-errors.js';
import * as bootstrapClaims from './0006-bootstrap-claims.js';
import * as deliveryEmail from './0009-delivery-email.js';
import * as operations from './0010-operations.js';
import * as livePix from './0011-live-pix.js';
import * as purchasePage from './0012-purchase-page.js';
import * as idempotencyMode from './0013-idempotency-mode.js';
import * as pspTokenRequest from './0013-psp-token-request.js';
import * as dashboardAccounts from './0014-dashboard-accounts.js';
import * as ordersAttribution from './0015-orders-attribution.js';
import * as analytics from './0016-analytics.js';
import * as subscriptions from './0017-subscriptions.js';
import * as dashboardSales from './0018-dashboard-sales.js';
import * as metaConversions from './0019-meta-conversions.js';
import * as dashboardFollowups from './0020-dashboard-followups.js';
import * as dashboardCatalog from './0021-dashboard-catalog.js';
import * as subscriptionsFixes from './0022-subscriptions-fixes.js';
import * as receivingAccount from './0023-receiving-account.js';
import * as membershipAcceptance from './0024-membership-acceptance.js';
import * as passwordResets from './0025-password-resets.js';
import * as auditActor from './0026-audit-actor.js';
import * as subscriptionCancelEmail from './0027-subscription-cancel-email.js';
import * as previousHandles from './0028-previous-handles.js';
import * as cardPayments from './0029-card-payments.js';
import * as cardTotals from './0030-card-totals.js';
import * as salesSearchListing from './0031-sales-search-listing.js';
import * as indexesWithoutNulls from './0032-indexes-without-nulls.js';
import * as dailyTotalsSlots from './0033-daily-totals-slots.js';

/**
 * Ordered by name, and a new file always sorts last: a database that already ran the newest
 * migration refuses one that would slot in before it. A resource adds its own file here.
 */
export const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-products': products,
  '0003-webhooks': webhooks,
  '0004-pix-sales': pixSales,
  '0005-delivery-errors': deliveryErrors,
  '0006-bootstrap-claims': bootstrapClaims,
  '0009-delivery-email': deliveryEmail,
  '0010-operations': operations,
  '0011-live-pix': livePix,
  '0012-purchase-page': purchasePage,
  '0013-idempotency-mode': idempotencyMode,
  '0013-psp-token-request': pspTokenRequest,
  '0014-dashboard-accounts': dashboardAccounts,
  '0015-orders-attribution': ordersAttribution,
  '0016-analytics': analytics,
  '0017-subscriptions': subscriptions,
  '0018-dashboard-sales': dashboardSales,
  '0019-meta-conversions': metaConversions,
  '0020-dashboard-followups': dashboardFollowups,
  '0021-dashboard-catalog': dashboardCatalog,
  '0022-subscriptions-fixes': subscriptionsFixes,
  '0023-receiving-account': receivingAccount,
  '0024-membership-acceptance': membershipAcceptance,
  '0025-password-resets': passwordResets,
  '0026-audit-actor': auditActor,
  '0027-subscription-cancel-email': subscriptionCancelEmail,
  '0028-previous-handles': previousHandles,
  '0029-card-payments': cardPayments,
  '0030-card-totals': cardTotals,
  '0031-sales-search-listing': salesSearchListing,
  '0032-indexes-without-nulls': indexesWithoutNulls,
  '0033-daily-totals-slots': dailyTotalsSlots,
};
