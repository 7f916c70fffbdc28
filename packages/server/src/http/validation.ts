import { Ajv } from 'ajv';
import type { Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

const shared: Options = {
  removeAdditional: false, // unknown fields are an error, never silently dropped
  useDefaults: true,
  allErrors: false,
  allowUnionTypes: true, // nullable fields are `type: [T, 'null']`
  multipleOfPrecision: 6, // `multipleOf: 0.01` on money without float noise
  strict: true,
  strictRequired: false,
};

function makeAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ ...shared, coerceTypes });
  addFormats.default(ajv);
  // OpenAPI annotations carried by route schemas.
  ajv.addKeyword('example');
  ajv.addKeyword('x-scope');
  return ajv;
}

/** JSON bodies are validated strictly; query strings and path params arrive as text and are coerced. */
const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema) as ReturnType<FastifySchemaCompiler<object>>;
