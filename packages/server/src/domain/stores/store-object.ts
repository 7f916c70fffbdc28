import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Money, Nullable } from '../../platform/http/schemas.js';
import { VISIBLE_TEXT_PATTERN } from '../../platform/http/text-patterns.js';
import { DEFAULT_RECOVERY_BODY, DEFAULT_RECOVERY_SUBJECT } from '../kernel/recovery-email-defaults.js';
import { INSTALLMENT_LIMITS, installmentSettingsOf } from './installment-settings.js';
import type { StoresTable } from './stores.js';

export const MIN_RECOVERY_DELAY_MINUTES = 15;
export const MAX_RECOVERY_DELAY_MINUTES = 10_080;

const visible = (maxLength: number, description: string) =>
  Type.String({ minLength: 1, maxLength, pattern: VISIBLE_TEXT_PATTERN, description });

const RECOVERY_PLACEHOLDERS =
  'Placeholders: `{{nome}}`, `{{produto}}`, `{{valor}}` (R$ 1.234,56), `{{link_pagamento}}` (the order page, where an expired Pix is renewed) and `{{loja}}`.';

const RecoveryEmail = Type.Object(
  {
    enabled: Type.Boolean({ description: 'Off by default.' }),
    delay_minutes: Type.Integer({
      minimum: MIN_RECOVERY_DELAY_MINUTES,
      maximum: MAX_RECOVERY_DELAY_MINUTES,
      description: 'Minutes after the abandonment, 15 to 10080 (7 days); default 60.',
    }),
    subject: Type.String({ description: `The subject, up to 200 characters. ${RECOVERY_PLACEHOLDERS}` }),
    body: Type.String({ description: `Plain text, up to 10000 characters. ${RECOVERY_PLACEHOLDERS}` }),
  },
  {
    description:
      'The abandoned-order e-mail: at most one per order, sent `delay_minutes` after the order is abandoned unless it was paid or canceled first.',
  },
);

const Installments = (description: string) =>
  Type.Integer({ minimum: 1, maximum: INSTALLMENT_LIMITS.maxInstallments, description });

/**
 * The card terms with their amounts as `amount` makes them: `Money` for what is sent (its
 * `multipleOf` documents cents), a plain whole-cents number for what is answered, since a rate kept
 * in basis points reads back as 0.07, which a validator's floating `multipleOf` refuses.
 */
const cardSettings = (amount: typeof Money) =>
  Type.Object(
    {
      max_installments: Installments('The most installments a buyer may choose, 1 to 12; default 12.'),
      interest_free_installments: Installments(
        'Up to this many installments the buyer pays the price split evenly; 1 to `max_installments`, default 1.',
      ),
      monthly_interest_rate: amount({
        minimum: 0,
        maximum: INSTALLMENT_LIMITS.maxMonthlyRate,
        example: 2.99,
        description:
          'Percent a month charged past the interest-free installments (Tabela Price), 0 to 10 with at most 2 decimals; default 2.99. 0 makes every option interest-free.',
      }),
      min_installment_amount: amount({
        ...INSTALLMENT_LIMITS.minInstallmentAmount,
        example: 5,
        description:
          'An option whose installment would be smaller is not offered (1x always is); 1.00 to 1,000,000.00, default 5.00.',
      }),
    },
    {
      description:
        'Card installment terms. Simulated and Pagar.me payments use this table; Mercado Pago answers its own options, capped at `max_installments`.',
    },
  );

const answered: typeof Money = ({ minimum, maximum, description, example }) =>
  Type.Number({
    minimum,
    maximum,
    'x-whole-cents': true,
    ...(description !== undefined && { description }),
    ...(example !== undefined && { example }),
  });

const CardSettings = cardSettings(answered);

const MetaSettings = Type.Object({
  pixel_id: Type.String({ example: '123456789012345' }),
  access_token_set: Type.Boolean({ description: 'The access token is write-only: this says one is kept.' }),
  test_event_code: Nullable(Type.String()),
  browser_pixel: Type.Boolean(),
});

export const Store = Type.Object(
  {
    object: Type.Literal('store'),
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    handle: Type.String({
      description: 'The first segment of the store’s purchase pages (`/p/<handle>/…`).',
    }),
    checkout_mode: Type.Union([Type.Literal('test'), Type.Literal('live')], {
      description: 'How the purchase pages charge buyers; changed with the CLI only.',
    }),
    timezone: Type.String({
      description: 'IANA time zone the store’s days are counted in.',
      example: 'America/Sao_Paulo',
    }),
    recovery_email: RecoveryEmail,
    conversions: Type.Object({
      meta: Nullable(MetaSettings),
    }),
    card: CardSettings,
  },
  { $id: 'Store', title: 'Store' },
);
export type Store = Static<typeof Store>;

export const UpdateStoreBody = Type.Object(
  {
    name: Type.Optional(visible(200, 'The store’s name, 1-200 characters.')),
    timezone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'An IANA time zone name, such as `America/Sao_Paulo` or `America/Manaus`.',
      }),
    ),
    recovery_email: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean()),
          delay_minutes: Type.Optional(RecoveryEmail.properties.delay_minutes),
          subject: Type.Optional(Nullable(visible(200, 'Null restores the default subject.'))),
          body: Type.Optional(Nullable(visible(10_000, 'Null restores the default text.'))),
        },
        { additionalProperties: false, description: 'Only the fields sent change.' },
      ),
    ),
    conversions: Type.Optional(
      Type.Object(
        {
          meta: Type.Optional(
            Nullable(
              Type.Object(
                {
                  pixel_id: Type.Optional(
                    Type.String({
                      pattern: '^[0-9]{1,32}$',
                      'x-pattern-message': 'must be the pixel’s digits (1 to 32)',
                    }),
                  ),
                  access_token: Type.Optional(
                    Type.String({
                      minLength: 1,
                      maxLength: 1000,
                      pattern: '^[\\x21-\\x7e]+$',
                      'x-pattern-message': 'must be the token as Meta shows it (no spaces)',
                      description:
                        'Write-only: kept encrypted, never returned. Required the first time; omit it to keep the one set.',
                    }),
                  ),
                  test_event_code: Type.Optional(Nullable(visible(100, 'Meta’s test events code, or null.'))),
                  browser_pixel: Type.Optional(Type.Boolean()),
                },
                {
                  additionalProperties: false,
                  description: 'Meta Conversions API; null removes it (and its token).',
                },
              ),
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    card: Type.Optional(
      Type.Partial(cardSettings(Money), {
        additionalProperties: false,
        description:
          'Only the fields sent change; `interest_free_installments` past `max_installments` (sent or kept) is refused.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type UpdateStoreBody = Static<typeof UpdateStoreBody>;

export function toStore(row: StoresTable): Store {
  return {
    object: 'store',
    id: row.id,
    name: row.name,
    handle: row.handle,
    checkout_mode: row.checkout_mode,
    timezone: row.timezone,
    recovery_email: {
      enabled: row.recovery_email_enabled === 1,
      delay_minutes: row.recovery_email_delay_minutes,
      subject: row.recovery_email_subject ?? DEFAULT_RECOVERY_SUBJECT,
      body: row.recovery_email_body ?? DEFAULT_RECOVERY_BODY,
    },
    conversions: {
      meta:
        row.meta_pixel_id === null
          ? null
          : {
              pixel_id: row.meta_pixel_id,
              access_token_set: row.meta_access_token_sealed !== null,
              test_event_code: row.meta_test_event_code,
              browser_pixel: row.meta_browser_pixel === 1,
            },
    },
    card: installmentSettingsOf(row),
  };
}
