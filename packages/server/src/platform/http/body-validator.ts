import type { Static, TSchema } from '@sinclair/typebox';
import { validationError } from './errors.js';
import { compileBodySchema } from './validation.js';
import type { AjvIssue } from './validation-messages.js';

/**
 * Checks a body against an API route's body schema, with the same validator and the same 400 (an
 * `ApiError` naming the field) as the route: the dashboard's forms build the API body from their
 * fields and check it here, so a form never accepts what the API refuses.
 */
export function bodyValidator<S extends TSchema>(schema: S): (body: unknown) => Static<S> {
  const validate = compileBodySchema(schema);
  return (body) => {
    if (!validate(body)) throw validationError(validate.errors as AjvIssue[], 'body');
    return body as Static<S>;
  };
}
