import type { Migration } from 'kysely';
import * as foundation from './0001-foundation.js';
import * as products from './0002-products.js';
import * as webhooks from './0003-webhooks.js';
import * as pixSales from './0004-pix-sales.js';
import * as bootstrapClaims from './0006-bootstrap-claims.js';
import * as operations from './0010-operations.js';
import * as deliveryEmail from './0009-delivery-email.js';
import * as deliveryErrors from './0005-delivery-errors.js';

/** Ordered by name; a resource adds its own file here. */
export const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-products': products,
  '0003-webhooks': webhooks,
  '0004-pix-sales': pixSales,
  '0006-bootstrap-claims': bootstrapClaims,
  '0010-operations': operations,
  '0009-delivery-email': deliveryEmail,
  '0005-delivery-errors': deliveryErrors,
};
