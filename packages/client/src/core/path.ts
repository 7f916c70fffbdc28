import { StorefrontError } from './errors.js';

/**
 * Tagged template for request paths: every interpolated id is URL-encoded, so an id (an external id
 * in particular) can never change which endpoint is called.
 */
export function path(strings: TemplateStringsArray, ...ids: string[]): string {
  return strings.reduce((out, segment, index) => out + encodeId(ids[index - 1]) + segment);
}

function encodeId(id: string | undefined): string {
  // An empty id would turn "retrieve" into "list", and `.`/`..` are resolved away by URL parsing.
  if (typeof id !== 'string' || id === '' || id === '.' || id === '..') {
    throw new StorefrontError(`Storefront: expected a non-empty id, got ${JSON.stringify(id)}`);
  }
  return encodeURIComponent(id);
}
