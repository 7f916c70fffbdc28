import { Ajv } from 'ajv';
import type { AnySchema, Options, ValidateFunction } from 'ajv';
import type { SchemaValidateFunction } from 'ajv/dist/types/index.js';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { isWholeCents } from '../values/money.js';

const shared: Options = {
  removeAdditional: false, // unknown fields are an error, never silently dropped
  useDefaults: true,
  allErrors: false,
  verbose: true, // issues carry their schema and value, for messages in the API's words (validation-messages.ts)
  allowUnionTypes: true, // nullable fields are `type: [T, 'null']`
  multipleOfPrecision: 6, // `multipleOf: 0.01` without float noise (19.99); x-whole-cents is the exact check
  strict: true,
  strictRequired: false,
};

/** Money fields: exactly a whole number of cents, no float tolerance (see `Money`). */
const wholeCents: SchemaValidateFunction = (required: boolean, amount: number) => {
  if (!required || isWholeCents(amount)) return true;
  wholeCents.errors = [
    { keyword: 'x-whole-cents', message: 'must have at most 2 decimal places', params: {} },
  ];
  return false;
};

function makeAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ ...shared, coerceTypes });
  addFormats.default(ajv);
  // OpenAPI annotations carried by route schemas.
  ajv.addKeyword('example');
  ajv.addKeyword('x-scope');
  // How a pattern's failure reads, in words: "must be #RGB or #RRGGBB" rather than the expression.
  ajv.addKeyword({ keyword: 'x-pattern-message', schemaType: 'string' });
  ajv.addKeyword({
    keyword: 'x-whole-cents',
    type: 'number',
    schemaType: 'boolean',
    errors: true,
    validate: wholeCents,
  });
  return ajv;
}

/** JSON bodies are validated strictly; query strings and path params arrive as text and are coerced. */
const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

type Validate = ReturnType<FastifySchemaCompiler<object>> & { errors?: unknown };

/**
 * Ajv coerces the texts `Infinity` and `1e400` to the number Infinity and then skips `minimum` and
 * `maximum` for a number that is not finite, so `?limit=Infinity` would pass. A query string or
 * path value (flat: one level of keys) that became a non-finite number fails its `type` instead.
 */
function finiteNumbersOnly(validate: ValidateFunction, schema: AnySchema): Validate {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const checked = (data: unknown) => {
    checked.errors = validate.errors;
    if (!validate(data)) {
      checked.errors = validate.errors;
      return false;
    }
    for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
      if (typeof value !== 'number' || Number.isFinite(value)) continue;
      const parentSchema = properties[key] ?? {};
      checked.errors = [
        {
          instancePath: `/${key}`,
          keyword: 'type',
          params: { type: parentSchema.type ?? 'number' },
          message: 'must be a finite number',
          parentSchema,
          data: value,
        },
      ];
      return false;
    }
    return true;
  };
  checked.errors = null as unknown;
  return checked as Validate;
}

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  httpPart === 'body'
    ? (bodyAjv.compile(schema) as Validate)
    : finiteNumbersOnly(textAjv.compile(schema), schema);

/** A body schema compiled exactly as the API's routes compile it (for bodies that arrive another way). */
export const compileBodySchema = (schema: AnySchema): ValidateFunction => bodyAjv.compile(schema);
