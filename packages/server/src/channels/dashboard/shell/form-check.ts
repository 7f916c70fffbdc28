import type { TSchema } from '@sinclair/typebox';
import { validationError } from '../../../platform/http/errors.js';
import { STORABLE_TEXT_PATTERN, VISIBLE_TEXT_PATTERN } from '../../../platform/http/text-patterns.js';
import type { AjvIssue } from '../../../platform/http/validation-messages.js';
import { compileBodySchema } from '../../../platform/http/validation.js';

/**
 * A dashboard form checked by the API's own body schema (the same validator as the API's routes), so
 * the dashboard never holds a second copy of a rule. The answer names every wrong field (by the API's
 * parameter path, `settings_json.checkout_fundo_cor`) with its first problem.
 */
export type FieldIssues = Map<string, AjvIssue>;

/** Removes the value at `settings_json.x` from a plain-object body; false when there is none. */
function dropAt(body: Record<string, unknown>, param: string): boolean {
  const path = param.split('.');
  let node: unknown = body;
  for (const key of path.slice(0, -1)) {
    node = (node as Record<string, unknown> | null)?.[key];
    if (typeof node !== 'object' || node === null) return false;
  }
  const last = path[path.length - 1]!;
  const parent = node as Record<string, unknown>;
  if (!(last in parent)) return false;
  delete parent[last];
  return true;
}

/**
 * Compiles `schema` once; the checker validates a body and, after each wrong field, checks again
 * without it (the validator stops at the first issue), so one submit names them all. An issue that
 * names no field of the body goes under ''.
 */
export function formChecker(schema: TSchema): (body: Record<string, unknown>) => FieldIssues {
  const validate = compileBodySchema(schema);
  return (sent) => {
    const body = structuredClone(sent);
    const issues: FieldIssues = new Map();
    while (!validate(body)) {
      const issue = (validate.errors as AjvIssue[])[0]!;
      const param = validationError([issue], 'body').param ?? '';
      issues.set(param, issue);
      if (param === '' || !dropAt(body, param)) break;
    }
    return issues;
  };
}

/**
 * What is wrong with a text field, in the dashboard's words, for the issues every text has (blank,
 * too long, a character no database stores); null for a field's own format, which its page words.
 */
export function textProblem(issue: AjvIssue): string | null {
  const { keyword, params } = issue;
  if (keyword === 'maxLength') return `Use no máximo ${String(params.limit)} caracteres.`;
  if (keyword === 'minLength' || (keyword === 'pattern' && params.pattern === VISIBLE_TEXT_PATTERN))
    return 'Preencha este campo.';
  if (keyword === 'pattern' && params.pattern === STORABLE_TEXT_PATTERN)
    return 'Remova os caracteres que não são texto (como NUL).';
  return null;
}
