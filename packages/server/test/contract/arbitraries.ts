import fc from 'fast-check';
import type { Arbitrary } from 'fast-check';

/**
 * fast-check arbitraries generated from the JSON Schemas of the OpenAPI description: values that
 * satisfy a schema, and mutations that certainly break it (a missing required field, a wrong type,
 * a string over its maxLength, a number out of range, an unknown field, a value outside an enum).
 */

export type Schema = Record<string, any>;
export type Resolve = (schema: Schema) => Schema;

const MAX_INT = 1_000_000_000;

export function resolver(document: Schema): Resolve {
  const resolve = (schema: Schema): Schema => {
    if (typeof schema?.$ref === 'string' && schema.$ref.startsWith('#/components/schemas/')) {
      return resolve(document.components.schemas[schema.$ref.slice('#/components/schemas/'.length)]);
    }
    return schema ?? {};
  };
  return resolve;
}

function typesOf(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties) return ['object'];
  return [];
}

const codePoints = (s: string) => [...s].length;

/**
 * What careless and hostile clients put in text: NUL, unpaired surrogates (both halves, at either
 * end), C0 control characters and DEL. NUL and unpaired surrogates must be refused (no database
 * stores them as sent); control characters are ordinary text. Either way, never a 5xx.
 */
export const HOSTILE_CHARACTERS = [
  '\u0000',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\u0001',
  '\u0007',
  '\b',
  '\t',
  '\n',
  '\r',
  '\u001b',
  '\u007f',
];

/** A short string with at least one hostile character among ordinary ones. */
export function hostileString(maxLength = 12): Arbitrary<string> {
  return fc
    .tuple(
      fc.string({ maxLength: Math.max(0, Math.min(maxLength, 12) - 1) }),
      fc.constantFrom(...HOSTILE_CHARACTERS),
      fc.nat(),
    )
    .map(([text, bad, at]) => {
      const i = at % (text.length + 1);
      return text.slice(0, i) + bad + text.slice(i);
    });
}

/** Every generated string may be hostile: one case in nine, whatever the schema asks for. */
function withHostile(arbitrary: Arbitrary<string>, maxLength: number): Arbitrary<string> {
  return fc.oneof({ weight: 8, arbitrary }, { weight: 1, arbitrary: hostileString(maxLength) });
}

function stringArbitrary(schema: Schema): Arbitrary<string> {
  return withHostile(wellFormedString(schema), schema.maxLength ?? 200);
}

function wellFormedString(schema: Schema): Arbitrary<string> {
  const min: number = schema.minLength ?? 0;
  const max: number = schema.maxLength ?? 200;
  const fitsLength = (s: string) => codePoints(s) >= min && codePoints(s) <= max;
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'date-time':
      return fc
        .date({
          min: new Date('2000-01-01T00:00:00Z'),
          max: new Date('2100-01-01T00:00:00Z'),
          noInvalidDate: true,
        })
        .map((d) => d.toISOString());
    case 'email':
      return fc.emailAddress().filter(fitsLength);
    case 'uri':
    case 'url':
      return fc.webUrl({ validSchemes: ['https'] }).filter(fitsLength);
  }
  if (typeof schema.pattern === 'string') {
    return fc.stringMatching(new RegExp(schema.pattern, 'u')).filter(fitsLength);
  }
  const short = fc.string({ minLength: min, maxLength: Math.min(max, Math.max(min, 24)) });
  const unicode = fc
    .string({ unit: 'grapheme', minLength: min, maxLength: Math.min(max, 12) })
    .filter(fitsLength);
  const longest = fc.constant('ç'.repeat(max));
  return fc.oneof(
    { weight: 6, arbitrary: short },
    { weight: 2, arbitrary: unicode },
    { weight: 1, arbitrary: longest },
  );
}

function numberArbitrary(schema: Schema, integer: boolean): Arbitrary<number> {
  const min: number =
    schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -MAX_INT);
  const max: number =
    schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : MAX_INT);
  if (integer) return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
  if (schema.multipleOf === 0.01 || schema['x-whole-cents'] === true) {
    return fc.integer({ min: Math.ceil(min * 100), max: Math.floor(max * 100) }).map((cents) => cents / 100);
  }
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

/** Values that satisfy `schema`. */
export function valid(schema: Schema, resolve: Resolve, depth = 0): Arbitrary<unknown> {
  schema = resolve(schema);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if ('const' in schema) return fc.constant(schema.const);
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key]))
      return fc.oneof(...schema[key].map((m: Schema) => valid(m, resolve, depth + 1)));
  }
  const types = typesOf(schema);
  if (types.length > 1) return fc.oneof(...types.map((type) => valid({ ...schema, type }, resolve, depth)));
  switch (types[0]) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return numberArbitrary(schema, true);
    case 'number':
      return numberArbitrary(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = valid(schema.items ?? {}, resolve, depth + 1);
      const constraints = { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 5, 5) };
      return schema.uniqueItems
        ? fc.uniqueArray(items, { ...constraints, selector: (v) => JSON.stringify(v) })
        : fc.array(items, constraints);
    }
    case 'object': {
      const properties: Record<string, Schema> = schema.properties ?? {};
      if (Object.keys(properties).length === 0) {
        if (schema.additionalProperties === false || depth > 4) return fc.constant({});
        const values =
          typeof schema.additionalProperties === 'object'
            ? valid(schema.additionalProperties, resolve, depth + 1)
            : withHostile(fc.string(), 12);
        return fc.dictionary(withHostile(fc.string({ minLength: 1, maxLength: 12 }), 12), values, {
          maxKeys: 3,
        });
      }
      const model = Object.fromEntries(
        Object.entries(properties).map(([key, property]) => [key, valid(property, resolve, depth + 1)]),
      );
      return fc.record(model, { requiredKeys: schema.required ?? [] }) as Arbitrary<unknown>;
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A value of a JSON type the schema does not allow, or null when every type is allowed. */
function wrongType(schema: Schema): unknown {
  const types = typesOf(schema);
  if (types.length === 0 || Array.isArray(schema.enum))
    return Array.isArray(schema.enum) ? { not: 'in enum' } : null;
  for (const value of [12345, 'x', true, ['an', 'array'], { an: 'object' }, null, 1.5]) {
    const type =
      value === null
        ? 'null'
        : Array.isArray(value)
          ? 'array'
          : typeof value === 'number'
            ? Number.isInteger(value)
              ? 'integer'
              : 'number'
            : typeof value;
    const allowed = types.includes(type) || (type === 'integer' && types.includes('number'));
    if (!allowed) return value;
  }
  return null;
}

export interface Mutation {
  kind: string;
  apply(body: Record<string, unknown>): unknown;
}

/** Mutations of a valid object body (for `schema`) that the service must refuse. */
export function invalidMutations(schema: Schema, resolve: Resolve): Mutation[] {
  schema = resolve(schema);
  const mutations: Mutation[] = [
    { kind: 'unknown field', apply: (body) => ({ ...body, unknown_field_x: 'surplus' }) },
    { kind: 'array body', apply: (body) => [body] },
    { kind: 'string body', apply: () => 'text' },
    { kind: 'null body', apply: () => null },
  ];
  for (const key of schema.required ?? []) {
    mutations.push({
      kind: `missing ${key}`,
      apply: (body) => {
        const copy = { ...body };
        delete copy[key];
        return copy;
      },
    });
  }
  for (const [key, raw] of Object.entries<Schema>(schema.properties ?? {})) {
    const property = resolve(raw);
    const wrong = wrongType(property);
    if (wrong !== null || (typesOf(property).length > 0 && !typesOf(property).includes('null'))) {
      mutations.push({ kind: `wrong type ${key}`, apply: (body) => ({ ...body, [key]: wrong }) });
    }
    if (typesOf(property).includes('string') && !Array.isArray(property.enum)) {
      mutations.push({
        kind: `unstorable text ${key}`,
        apply: (body) => ({
          ...body,
          [key]: `a${['\u0000', '\ud800', '\udfff'][Object.keys(body).length % 3]}b`,
        }),
      });
    }
    if (typeof property.maxLength === 'number') {
      mutations.push({
        kind: `over-long ${key}`,
        apply: (body) => ({ ...body, [key]: 'a'.repeat(property.maxLength + 1) }),
      });
    }
    if (typeof property.maximum === 'number') {
      mutations.push({
        kind: `above maximum ${key}`,
        apply: (body) => ({ ...body, [key]: property.maximum + 1 }),
      });
    }
    if (property.multipleOf === 0.01 || property['x-whole-cents'] === true) {
      mutations.push({ kind: `fraction of a cent ${key}`, apply: (body) => ({ ...body, [key]: 19.999 }) });
    }
    if (typeof property.minimum === 'number') {
      mutations.push({
        kind: `below minimum ${key}`,
        apply: (body) => ({ ...body, [key]: property.minimum - 1 }),
      });
    }
    if (Array.isArray(property.enum) && property.enum.every((v: unknown) => typeof v === 'string')) {
      mutations.push({ kind: `outside enum ${key}`, apply: (body) => ({ ...body, [key]: 'not_a_value' }) });
    }
    if (property.additionalProperties === false && property.properties) {
      mutations.push({
        kind: `unknown field in ${key}`,
        apply: (body) => ({ ...body, [key]: { unknown_nested_x: true } }),
      });
    }
  }
  return mutations;
}
