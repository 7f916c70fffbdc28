import { describe, expect, it } from 'vitest';
import { newProductCode } from '../../src/domain/catalogue/product-code.js';
import { slugCandidate, slugify } from '../../src/domain/catalogue/slug.js';
import { CODIGO } from './support.js';

const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;

describe('slugify', () => {
  it.each([
    ['Curso de Violão', 'curso-de-violao'],
    ['  --Olá, Mundo!! ', 'ola-mundo'],
    ['ÀÉÎÕÜ çñ', 'aeiou-cn'],
    ['Ebook 2026: Edição #3', 'ebook-2026-edicao-3'],
    ['a_b.c/d', 'a-b-c-d'],
    ['🎸', 'produto'],
    ['', 'produto'],
  ])('%j → %s', (nome, slug) => {
    expect(slugify(nome)).toBe(slug);
  });

  it('cuts to 60 characters without a trailing dash', () => {
    const slug = slugify(`${'a'.repeat(59)} b`);
    expect(slug).toBe('a'.repeat(59));
    expect(slugify('x'.repeat(200))).toHaveLength(60);
  });
});

describe('slugCandidate', () => {
  it('is the base first, then base-n cut to fit 60 on a clean edge', () => {
    expect(slugCandidate('curso', 1)).toBe('curso');
    expect(slugCandidate('curso', 2)).toBe('curso-2');
    expect(slugCandidate('x'.repeat(60), 10)).toBe(`${'x'.repeat(57)}-10`);
    expect(slugCandidate(`${'a'.repeat(57)}-bc`, 2)).toBe(`${'a'.repeat(57)}-2`);
  });

  it('always gives a valid slug of at most 60 characters', () => {
    for (const base of ['a', 'a-b', 'x'.repeat(60), `${'ab-'.repeat(19)}abc`]) {
      for (const n of [1, 2, 9, 10, 99, 100, 12345]) {
        const candidate = slugCandidate(base, n);
        expect(candidate).toMatch(SLUG);
        expect(candidate.length).toBeLessThanOrEqual(60);
      }
    }
  });
});

describe('newProductCode', () => {
  it('is PRD- and 8 unambiguous uppercase base32 characters', () => {
    const codes = Array.from({ length: 1000 }, newProductCode);
    for (const code of codes) expect(code).toMatch(CODIGO);
    expect(new Set(codes).size).toBe(1000);
  });
});
