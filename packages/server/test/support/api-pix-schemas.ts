import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * The Banco Central's API Pix 2.9.0 schemas for the resources the fake PSP serves (a copy committed
 * beside this file: `api-pix-2.9.0-rec.schemas.json`, whose `corrections` list each edit made to the
 * standard's text and why), compiled with ajv. The fake PSP refuses a request body that does not
 * match, and checks its own answers against them, so our client is held to the standard, not to the
 * fake's idea of it.
 */
const DOCUMENT = JSON.parse(
  readFileSync(new URL('./api-pix-2.9.0-rec.schemas.json', import.meta.url), 'utf8'),
) as { $id: string };

export type ApiPixSchema =
  | 'CobSolicitada'
  | 'CobGerada'
  | 'RecSolicitada'
  | 'RecRevisada'
  | 'RecGerada'
  | 'RecCompleta'
  | 'RecNotification'
  | 'PayloadLocationRecGerada'
  | 'PayloadLocationRecCompleta'
  | 'CobRSolicitada'
  | 'CobRGerada'
  | 'CobRCompleta'
  | 'CobRNotification'
  | 'WebhookRecSolicitado'
  | 'WebhookCobRSolicitado'
  | 'Problema';

// OpenAPI 3.0 schemas carry keywords JSON Schema does not know (`readOnly` on a $ref sibling,
// `maximum` on arrays): not strict, but every format the standard names is checked.
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(DOCUMENT);
const validators = new Map<ApiPixSchema, ValidateFunction>();

/** The violations of `schema` by `value`, in the standard's `violacoes` shape (empty: valid). */
export function apiPixViolations(
  schema: ApiPixSchema,
  value: unknown,
): { razao: string; propriedade: string }[] {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.getSchema(`${DOCUMENT.$id}#/components/schemas/${schema}`)!;
    validators.set(schema, validate);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => ({
    razao: `${error.message ?? 'inválido'}${error.params ? ` ${JSON.stringify(error.params)}` : ''}`,
    propriedade: error.instancePath.replaceAll('/', '.').replace(/^\./, '') || '(corpo)',
  }));
}
