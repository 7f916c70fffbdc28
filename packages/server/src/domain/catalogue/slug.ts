import { nthCandidate, slugOf } from '../../platform/values/slug.js';
import { SLUG_MAX_LENGTH } from './product-schemas.js';

/** When a name has no letter or digit left (only emoji, say), the slug still needs a word. */
const FALLBACK_SLUG = 'produto';

/** The slug a product name suggests: "Curso de Violão" → `curso-de-violao`. */
export const slugify = (name: string): string => slugOf(name, SLUG_MAX_LENGTH) || FALLBACK_SLUG;

/** The n-th candidate for a base slug: the base itself, then `base-2`, `base-3`…, cut to fit the limit. */
export const slugCandidate = (base: string, n: number): string => nthCandidate(base, n, SLUG_MAX_LENGTH);
