import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { VISIBLE_TEXT_PATTERN } from '../../platform/http/text-patterns.js';
import { CheckoutSettingsInput } from './settings.js';

/** The request bodies of POST and PATCH /checkouts; the dashboard's editor checks its forms with these too. */

export const CHECKOUT_NAME_MAX = 120;

const CheckoutName = Type.String({
  minLength: 1,
  maxLength: CHECKOUT_NAME_MAX,
  pattern: VISIBLE_TEXT_PATTERN,
  description: '1-120 characters.',
});

export const CreateCheckoutBody = Type.Object(
  {
    name: CheckoutName,
    product_id: Type.Optional(
      Type.String({ format: 'uuid', description: 'A product of the store to link to the new checkout.' }),
    ),
    settings_json: Type.Optional(CheckoutSettingsInput),
  },
  { additionalProperties: false },
);
export type CreateCheckoutBody = Static<typeof CreateCheckoutBody>;

export const UpdateCheckoutBody = Type.Object(
  {
    name: Type.Optional(CheckoutName),
    settings_json: Type.Optional(CheckoutSettingsInput),
  },
  { additionalProperties: false },
);
export type UpdateCheckoutBody = Static<typeof UpdateCheckoutBody>;
