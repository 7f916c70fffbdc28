const trimDashes = (text: string) => text.replace(/^-+|-+$/g, '');

/**
 * The URL word a name suggests: accents stripped ("Curso de Violão" → `curso-de-violao`), every run
 * of other characters one dash, cut to `maxLength` on a clean edge; empty when nothing is left.
 * Product slugs and store handles both come from here.
 */
export function slugOf(name: string, maxLength: number): string {
  const words = name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
  return trimDashes(trimDashes(words).slice(0, maxLength));
}

/** The n-th candidate for a base: the base itself, then `base-2`, `base-3`…, cut to `maxLength`. */
export function nthCandidate(base: string, n: number, maxLength: number): string {
  if (n === 1) return base;
  const suffix = `-${n}`;
  return `${trimDashes(base.slice(0, maxLength - suffix.length))}${suffix}`;
}
