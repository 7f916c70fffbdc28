import { STORABLE_TEXT_PATTERN, UNSTORABLE_TEXT_MESSAGE, VISIBLE_TEXT_PATTERN } from './text-patterns.js';

/**
 * Validation failures in the API's words, for every route: what is allowed ("must be one of cor,
 * imagem, gradiente", "must not be blank"), never the schema's (a regular expression, "constant",
 * "allowed values"). The validator runs with `verbose`, so each issue carries its schema and value.
 */

export interface AjvIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  propertyName?: string;
  schema?: unknown;
  parentSchema?: Record<string, unknown>;
  data?: unknown;
}

/** A short, safe rendering of the value that was sent. */
function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return `'${text.length > 40 ? `${text.slice(0, 40)}…` : text}'`;
}

const listed = (values: unknown[]) =>
  values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'an array',
  null: 'null',
};

const FORMAT_WORDS: Record<string, string> = {
  email: 'an e-mail address',
  uri: 'a URL',
  url: 'a URL',
  uuid: 'a UUID',
  'date-time': 'an ISO 8601 date and time (2026-11-22T10:00:00.000Z)',
  date: 'a date as YYYY-MM-DD (2026-11-22)',
};

const plural = (n: unknown, word: string) => `${String(n)} ${word}${n === 1 ? '' : 's'}`;

/** The values a union of literals allows, when `issue` is one branch's `const` failure. */
function unionOfLiterals(issue: AjvIssue, all: AjvIssue[]): unknown[] | null {
  const union = all.find((other) => other.keyword === 'anyOf' && other.instancePath === issue.instancePath);
  const branches = union?.parentSchema?.anyOf;
  if (!Array.isArray(branches) || !branches.every((b) => typeof b === 'object' && b && 'const' in b))
    return null;
  return branches.map((b) => (b as { const: unknown }).const);
}

function patternPhrase(issue: AjvIssue): string {
  const pattern = issue.params.pattern;
  // NUL and unpaired surrogates are refused before validation (storable-text.ts): what is left is blank.
  if (pattern === VISIBLE_TEXT_PATTERN) return 'must not be blank';
  if (pattern === STORABLE_TEXT_PATTERN) return UNSTORABLE_TEXT_MESSAGE;
  const hint = issue.parentSchema?.['x-pattern-message'];
  return typeof hint === 'string'
    ? hint
    : 'is not in the expected format (its description is in GET /openapi.json)';
}

/** What is wrong with the value, as the end of "Invalid parameter x: …". */
export function describeIssue(issue: AjvIssue, all: AjvIssue[]): string {
  const p = issue.params;
  const key = issue.propertyName === undefined ? '' : `key ${shown(issue.propertyName)} `;
  switch (issue.keyword) {
    case 'enum':
      return `unknown value ${shown(issue.data)}; must be one of ${listed(p.allowedValues as unknown[])}`;
    case 'const': {
      const values = unionOfLiterals(issue, all);
      return values === null
        ? `must be ${listed([p.allowedValue])}`
        : `unknown value ${shown(issue.data)}; must be one of ${listed(values)}`;
    }
    case 'type': {
      const types = String(p.type).split(',');
      return `must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`;
    }
    case 'pattern':
      return `${key}${patternPhrase(issue)}`;
    case 'format':
      return `must be ${FORMAT_WORDS[String(p.format)] ?? `a valid ${String(p.format)}`}`;
    case 'minLength':
      return p.limit === 1
        ? `${key}must not be empty`
        : `${key}must be at least ${plural(p.limit, 'character')}`;
    case 'maxLength':
      return `${key}must be at most ${plural(p.limit, 'character')}`;
    case 'minimum':
      return `must be at least ${String(p.limit)}`;
    case 'maximum':
      return `must be at most ${String(p.limit)}`;
    case 'exclusiveMinimum':
      return `must be more than ${String(p.limit)}`;
    case 'exclusiveMaximum':
      return `must be less than ${String(p.limit)}`;
    case 'minItems':
      return `must have at least ${plural(p.limit, 'item')}`;
    case 'maxItems':
      return `must have at most ${plural(p.limit, 'item')}`;
    case 'maxProperties':
      return `must have at most ${plural(p.limit, 'key')}`;
    case 'minProperties':
      return `must have at least ${plural(p.limit, 'key')}`;
    case 'uniqueItems':
      return 'must not repeat an item';
    case 'multipleOf':
      return `must be a multiple of ${String(p.multipleOf)}`;
    case 'anyOf':
    case 'oneOf':
      return 'does not match any accepted form';
    default:
      return issue.message ?? 'is invalid';
  }
}
