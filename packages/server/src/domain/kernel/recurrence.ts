import { Type } from '@sinclair/typebox';

/** How often a recurring product is billed; null sells it once. */
export const RECORRENCIAS = ['semanal', 'mensal', 'trimestral', 'semestral', 'anual'] as const;
export type Recorrencia = (typeof RECORRENCIAS)[number];

/** Whether a failed cycle charge may be retried (Pix Automático allows 3 retries within 7 days). */
export const RETRY_POLICIES = ['none', '3_in_7_days'] as const;
export type RetryPolicy = (typeof RETRY_POLICIES)[number];

const RECORRENCIA_TEXT =
  'billed every week (`semanal`), month (`mensal`), 3 months (`trimestral`), 6 months (`semestral`) or year (`anual`)';

export const RecorrenciaSchema = Type.Unsafe<Recorrencia>({
  type: 'string',
  enum: [...RECORRENCIAS],
  description: `A subscription ${RECORRENCIA_TEXT}.`,
});

/** A product's: with null in the enum, since a product sold once says `null`. */
export const ProductRecorrenciaSchema = Type.Unsafe<Recorrencia | null>({
  type: ['string', 'null'],
  enum: [...RECORRENCIAS, null],
  description: `Sells the product as a subscription through Pix Automático, ${RECORRENCIA_TEXT}; null sells it once.`,
});

export const RetryPolicySchema = Type.Unsafe<RetryPolicy>({
  type: 'string',
  enum: [...RETRY_POLICIES],
  description:
    'Whether a failed cycle charge is retried: `3_in_7_days` (up to 3 retries on the following days, within 7 days) or `none`.',
});
