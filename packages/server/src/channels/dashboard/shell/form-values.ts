import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../platform/http/api-error.js';

/*
 * From a form's text fields to an API body, and from the API's refusal back to the field. The
 * dashboard's forms build the body the API would get and check it with the API's own schema and
 * service: a value the form cannot read is passed on as typed, so the schema refuses it by name.
 */

/** A form field as its body carries it: optional text, and none longer than a person would type. */
export const FormText = Type.Optional(Type.String({ maxLength: 10_000 }));

/** An optional text field: empty (or blanks) is null, which clears it; line breaks as the API stores them. */
export function optionalText(value: string | undefined): string | null {
  const text = (value ?? '').replace(/\r\n/g, '\n');
  return text.trim() === '' ? null : text;
}

/** `1.234,56`, `1234,56`, `R$ 19,90` or `19.90` → the number; anything else stays text. */
export function parseBrl(value: string | undefined): number | string {
  const text = (value ?? '').trim().replace(/^R\$\s*/, '');
  const plain = text.includes(',') ? text.replace(/\./g, '').replace(',', '.') : text;
  return /^\d+(\.\d+)?$/.test(plain) ? Number(plain) : text;
}

/** A whole number typed in a field; anything else stays text. */
export function parseWhole(value: string | undefined): number | string {
  const text = (value ?? '').trim().replace(/\./g, '');
  return /^\d{1,15}$/.test(text) ? Number(text) : text;
}

/** A price as the forms show it: `1234,56`. */
export const brlInput = (amount: number): string => amount.toFixed(2).replace('.', ',');

/** A form shown again after a refusal: what was typed, and the refused field's message by its API name. */
export interface RefusedForm<V> {
  values: V;
  errors: Record<string, string>;
}

/**
 * The form state for a refused body: the field it names (its first segment: `product_ids.2` →
 * `product_ids`) gets that field's message; a refusal of the body as a whole goes to `first`, the
 * form's first field. Anything but a 400 is not the form's problem and is thrown on.
 */
export function refusedForm<V>(
  error: unknown,
  values: V,
  messages: Record<string, string>,
  first: string,
): RefusedForm<V> {
  if (!(error instanceof ApiError) || error.statusCode !== 400) throw error;
  const field = error.param?.split('.')[0] ?? first;
  return { values, errors: { [field]: messages[field] ?? 'Confira este campo.' } };
}

/** The fields whose value differs between two states of one API object (for the audit log). */
export function changedFields<T extends object>(before: T, after: T): string[] {
  return (Object.keys(after) as (keyof T & string)[]).filter(
    (key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]),
  );
}
