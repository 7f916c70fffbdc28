import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../../src/platform/http/openapi.js';
import { isWholeCents } from '../../src/platform/values/money.js';

/**
 * Holds every response the HTTP test suite receives to the OpenAPI description the service publishes:
 * the status must be documented for the operation, and the body must match that status's schema
 * (error statuses: the ErrorEnvelope component). Schemas are compiled with ajv from the document's own
 * components, once per process, and each validator is cached per operation and status.
 */

type Json = Record<string, any>;

export interface DescribedOperation {
  method: string;
  /** The documented path, e.g. `/checkouts/{id}`. */
  path: string;
  operation: Json;
}

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

const COMPONENTS_ID = 'urn:storefront:openapi:components';
const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** `#/components/schemas/X` → a reference into the components schema registered with ajv. */
function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (typeof node !== 'object' || node === null) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')
        ? `${COMPONENTS_ID}#/$defs/${value.slice('#/components/schemas/'.length)}`
        : rewriteRefs(value);
  }
  return out;
}

/** `/data/0/settings_json/checkout_fundo_cor` → `data[0].settings_json.checkout_fundo_cor`. */
function fieldOf(error: ErrorObject): string {
  let field = 'body';
  for (const part of error.instancePath.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    field += /^\d+$/.test(key) ? `[${key}]` : `.${key}`;
  }
  if (error.keyword === 'required') field += `.${String(error.params.missingProperty)}`;
  if (error.keyword === 'additionalProperties') field += `.${String(error.params.additionalProperty)}`;
  return field;
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 5)
    .map((error) => {
      const field = fieldOf(error);
      if (error.keyword === 'required') return `${field} is required but missing`;
      if (error.keyword === 'additionalProperties') return `${field} is not in the schema`;
      const allowed = error.keyword === 'enum' ? ` (${JSON.stringify(error.params.allowedValues)})` : '';
      return `${field} ${error.message ?? 'is invalid'}${allowed}`;
    })
    .join('; ');
}

export class ContractValidator {
  private readonly ajv: Ajv2020;
  private readonly operations: Array<DescribedOperation & { pattern: RegExp; literals: number }> = [];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true, validateFormats: true });
    addFormats.default(this.ajv);
    // The service's own keyword for money (src/platform/http/validation.ts): answers must be whole cents too.
    this.ajv.addKeyword({
      keyword: 'x-whole-cents',
      type: 'number',
      schemaType: 'boolean',
      validate: (enabled: boolean, value: number) => !enabled || isWholeCents(value),
    });
    this.ajv.addSchema(
      { $id: COMPONENTS_ID, $defs: rewriteRefs(document.components?.schemas ?? {}) },
      COMPONENTS_ID,
    );
    for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
      const segments = path.split('/').slice(1);
      const source = segments
        .map((segment) =>
          /^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
        )
        .join('/');
      const literals = segments.filter((s) => !s.startsWith('{')).length;
      for (const method of HTTP_METHODS) {
        if (!item[method]) continue;
        this.operations.push({
          method: method.toUpperCase(),
          path,
          operation: item[method],
          pattern: new RegExp(`^/${source}$`),
          literals,
        });
      }
    }
    // A static segment wins over a parameter, as in Fastify's router.
    this.operations.sort((a, b) => b.literals - a.literals);
  }

  /** Every described operation. */
  list(): DescribedOperation[] {
    return this.operations.map(({ method, path, operation }) => ({ method, path, operation }));
  }

  /** The operation a request reaches, by method and path relative to the server URL (no query). */
  find(method: string, path: string): DescribedOperation | undefined {
    return this.operations.find((op) => op.method === method && op.pattern.test(path));
  }

  /** Statuses documented for an operation. */
  statuses(operation: DescribedOperation): string[] {
    return Object.keys(operation.operation.responses ?? {});
  }

  private validatorFor(key: string, schema: Json): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(rewriteRefs(schema) as Json);
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** Validates a body against a schema of the document; returns readable errors or null. */
  validate(key: string, schema: Json, body: unknown): string | null {
    const validate = this.validatorFor(key, schema);
    return validate(body) ? null : describeErrors(validate.errors);
  }

  /**
   * Throws a ContractViolation naming the method, the documented route and the field when a response
   * is not what the description promises. `url` is the full request URL.
   */
  check(
    method: string,
    url: string,
    response: { status: number; headers: Headers; text: string; body: unknown },
  ): void {
    method = method.toUpperCase();
    if (method === 'HEAD' || method === 'OPTIONS') return;
    const pathname = new URL(url).pathname;
    if (!pathname.startsWith(`${API_PREFIX}/`)) return; // health checks and the docs page are not the API
    const path = pathname.slice(API_PREFIX.length);
    if (path === '/openapi.json') return;
    const described = this.find(method, path);
    const where = described ? `${method} ${described.path}` : `${method} ${path} (no such operation)`;
    const fail = (message: string) => {
      throw new ContractViolation(
        `contract: ${where} answered ${response.status}: ${message}\n  body: ${response.text.slice(0, 400)}`,
      );
    };

    if (!described) {
      // Unknown routes answer 404 not_found in the error envelope.
      if (response.status !== 404) fail('a path the description does not have must answer 404');
      const errors = this.validate(
        'unknown-route',
        { $ref: '#/components/schemas/ErrorEnvelope' },
        response.body,
      );
      if (errors) fail(errors);
      return;
    }

    const responses: Json = described.operation.responses ?? {};
    const status = String(response.status);
    const documented = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default;
    if (!documented) {
      fail(
        `status ${status} is not documented for this operation (documented: ${Object.keys(responses).join(', ')})`,
      );
    }
    const media = documented.content?.['application/json'];
    if (!documented.content) {
      if (response.text !== '') fail('the description documents no body for this status');
      return;
    }
    if (!media)
      fail(`no application/json content documented (${Object.keys(documented.content).join(', ')})`);
    const contentType = response.headers.get('content-type') ?? '';
    if (!contentType.startsWith('application/json'))
      fail(`content-type is "${contentType}", not application/json`);
    if (response.body === null && response.text.trim() !== 'null') fail('the body is not JSON');
    const errors = this.validate(`${where} ${status}`, media.schema ?? {}, response.body);
    if (errors) fail(errors);
  }
}

let shared: ContractValidator | undefined;

/** The validator for the description the app serves; built once per process (the document is static). */
export function contractOf(app: FastifyInstance): ContractValidator {
  shared ??= new ContractValidator(app.swagger() as unknown as Json);
  return shared;
}
