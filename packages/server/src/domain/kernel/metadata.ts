import { Type } from '@sinclair/typebox';

export const MAX_METADATA_KEYS = 20;
export const MAX_METADATA_KEY_LENGTH = 40;
export const MAX_METADATA_VALUE_LENGTH = 500;

/**
 * The caller's own key-value pairs, bounded so a charge (and every event carrying it) stays small:
 * at most 20 keys of 1-40 characters, string values of at most 500 characters.
 */
export const Metadata = Type.Unsafe<Record<string, string>>({
  type: 'object',
  maxProperties: MAX_METADATA_KEYS,
  propertyNames: { minLength: 1, maxLength: MAX_METADATA_KEY_LENGTH },
  additionalProperties: { type: 'string', maxLength: MAX_METADATA_VALUE_LENGTH },
  description: 'At most 20 keys of 1-40 characters; values are strings of at most 500 characters.',
  example: { order: '1001' },
});

export type Metadata = Record<string, string>;
