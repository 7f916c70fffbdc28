import { Type } from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';

/**
 * `T | null` as one JSON Schema `type` array rather than `anyOf`, so validation errors stay readable
 * ("must be string,null") and length limits still apply to the string branch.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const { type, ...rest } = schema as unknown as { type: string; [key: string]: unknown };
  return Type.Unsafe<Static<T> | null>({ ...rest, type: [type, 'null'] });
}

/**
 * An absolute http:// or https:// URL of at most `maxLength` characters (checkout images, product
 * images): nothing a page would run or inline (`javascript:`, `data:`) and nothing it cannot load.
 */
export function HttpUrl(maxLength: number, description?: string) {
  return Type.String({
    maxLength,
    pattern: '^https?://[^\\u0000\\ud800-\\udfff]*$',
    'x-pattern-message': 'must be an http:// or https:// URL',
    ...(description !== undefined && { description }),
  });
}

/**
 * An amount of BRL with at most 2 decimals, stored as integer cents. `x-whole-cents` is
 * checked exactly by the validator (see validation.ts); `multipleOf` documents it for readers.
 */
export function Money(options: { minimum: number; maximum: number; description?: string; example?: number }) {
  return Type.Number({ ...options, multipleOf: 0.01, 'x-whole-cents': true });
}

export const Timestamp = Type.String({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' });

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ example: 'invalid_request' }),
      message: Type.String(),
      param: Nullable(Type.String()),
      request_id: Type.String({ example: 'req_8mZ0b2kqP1sXw4TnYc7H' }),
    }),
  },
  { $id: 'ErrorEnvelope', title: 'Error' },
);

export function ListEnvelope<T extends TSchema>(item: T) {
  return Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(item),
    has_more: Type.Boolean(),
    next_cursor: Nullable(Type.String()),
  });
}

export const IdParams = Type.Object({ id: Type.String() });

/** The error responses every authenticated operation can give. */
export function errorResponses(...statuses: number[]) {
  const ref = Type.Ref(ErrorEnvelope);
  return Object.fromEntries([401, 403, 429, 500, ...statuses].map((status) => [status, ref]));
}
