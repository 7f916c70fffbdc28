import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { PageQuery } from '../../platform/http/pagination.js';
import { HttpUrl, Money, Nullable } from '../../platform/http/schemas.js';
import { ProductRecorrenciaSchema, RetryPolicySchema } from '../kernel/recurrence.js';
import { STORABLE_TEXT_PATTERN, VISIBLE_TEXT_PATTERN } from '../../platform/http/text-patterns.js';

export const SLUG_MAX_LENGTH = 60;
/** Lowercase `a-z0-9` words joined by single dashes. */
export const SLUG_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';

/** Lengths are in characters: ajv counts code points, so an emoji is one. */
const Text = (maxLength: number) =>
  Nullable(
    Type.String({ maxLength, pattern: STORABLE_TEXT_PATTERN, description: `Up to ${maxLength} characters.` }),
  );
const Uuid = (description: string) => Type.String({ format: 'uuid', description });

/** The editable fields. `codigo` is not among them: sending it is an unknown field. */
const editable = {
  nome: Type.String({
    minLength: 1,
    maxLength: 120,
    pattern: VISIBLE_TEXT_PATTERN,
    description: '1-120 characters, at least one visible.',
  }),
  preco: Money({
    minimum: 0,
    maximum: 1_000_000,
    description: 'BRL, 0 to 1,000,000, at most 2 decimals.',
  }),
  slug: Type.String({
    minLength: 1,
    maxLength: SLUG_MAX_LENGTH,
    pattern: SLUG_PATTERN,
    'x-pattern-message':
      'must be lowercase letters and digits in words joined by single dashes (curso-de-violao)',
    description: 'Unique per store. Generated from nome when omitted on creation.',
  }),
  descricao: Text(4000),
  imagem: Nullable(HttpUrl(1000, 'An absolute http:// or https:// URL, up to 1000 characters.')),
  ativo: Type.Boolean({ description: 'Defaults to true on creation.' }),
  link_acesso: Text(1000),
  garantia: Text(500),
  checkout_id: Nullable(Uuid('A non-archived checkout of the store; null uses the default checkout.')),
  order_bump_enabled: Type.Boolean(),
  order_bump_product_id: Nullable(Uuid('Another product of the same store.')),
  order_bump_title: Text(120),
  order_bump_description: Text(500),
  delivery_email_subject: Text(160),
  delivery_email_body: Text(3000),
  recorrencia: ProductRecorrenciaSchema,
  retry_policy: RetryPolicySchema,
};

const { nome, preco, ...optional } = editable;

export const CreateProductBody = Type.Object(
  { nome, preco, ...Type.Partial(Type.Object(optional)).properties },
  { additionalProperties: false },
);
export type CreateProductBody = Static<typeof CreateProductBody>;

/** PATCH: the same fields, all optional; only the fields sent change. */
export const UpdateProductBody = Type.Partial(Type.Object(editable), { additionalProperties: false });
export type UpdateProductBody = Static<typeof UpdateProductBody>;

export const ListProductsQuery = Type.Partial(
  Type.Object({
    ...PageQuery,
    ativo: Type.Boolean({ description: '`true` or `false`.' }),
    codigo: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: STORABLE_TEXT_PATTERN,
      description: 'Exact product code.',
    }),
    slug: Type.String({
      minLength: 1,
      maxLength: SLUG_MAX_LENGTH,
      pattern: STORABLE_TEXT_PATTERN,
      description: 'Exact slug.',
    }),
  }),
  { additionalProperties: false },
);
