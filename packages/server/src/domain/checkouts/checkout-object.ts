import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Nullable, Timestamp } from '../../platform/http/schemas.js';
import { type DbBool, toBool } from '../../platform/db/schema.js';
import { CheckoutSettings } from './settings.js';

export interface CheckoutsTable {
  id: string;
  store_id: string;
  name: string;
  is_default: DbBool;
  archived: DbBool;
  settings_json: string;
  created_at: string;
  updated_at: string;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    checkouts: CheckoutsTable;
  }
}

export const Checkout = Type.Object(
  {
    object: Type.Literal('checkout'),
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    is_default: Type.Boolean(),
    archived: Type.Boolean(),
    banner_url: Nullable(
      Type.String({
        description:
          'Read-only: always equal to `settings_json.checkout_banner_url` (null when that is null). It cannot be sent; set the banner through `settings_json`.',
      }),
    ),
    settings_json: CheckoutSettings,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Checkout', title: 'Checkout' },
);

export type Checkout = Static<typeof Checkout>;

export function toCheckout(row: CheckoutsTable): Checkout {
  const settings = JSON.parse(row.settings_json) as CheckoutSettings;
  return {
    object: 'checkout',
    id: row.id,
    name: row.name,
    is_default: toBool(row.is_default),
    archived: toBool(row.archived),
    // banner_url mirrors the banner setting, kept in one place: the settings.
    banner_url: settings.checkout_banner_url,
    settings_json: settings,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
