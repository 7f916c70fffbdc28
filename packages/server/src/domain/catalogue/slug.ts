import { SLUG_MAX_LENGTH } from './product-schemas.js';

/** When a name has no letter or digit left (only emoji, say), the slug still needs a word. */
const FALLBACK_SLUG = 'produto';

const trimDashes = (text: string) => text.replace(/^-+|-+$/g, '');

/**
 * The slug a name suggests: accents stripped ("Curso de Violão" → `curso-de-violao`),
 * every run of other characters becomes one dash, cut to the length limit on a clean edge.
 */
export function slugify(name: string): string {
  const words = name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
  return trimDashes(trimDashes(words).slice(0, SLUG_MAX_LENGTH)) || FALLBACK_SLUG;
}

/** The n-th candidate for a base slug: the base itself, then `base-2`, `base-3`…, cut to fit the limit. */
export function slugCandidate(base: string, n: number): string {
  if (n === 1) return base;
  const suffix = `-${n}`;
  return `${trimDashes(base.slice(0, SLUG_MAX_LENGTH - suffix.length))}${suffix}`;
}
