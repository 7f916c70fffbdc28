import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatBrl } from '../../src/platform/values/money.js';

const intl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

describe('formatBrl', () => {
  it('writes R$ with a plain space, dots between thousands and a comma before the cents', () => {
    expect(formatBrl(123_456)).toBe('R$ 1.234,56');
    expect(formatBrl(9_700)).toBe('R$ 97,00');
    expect(formatBrl(1)).toBe('R$ 0,01');
    expect(formatBrl(100_000_000)).toBe('R$ 1.000.000,00');
  });

  it("is Intl's pt-BR currency text for any amount, first written or kept (5,000 runs, twice each)", () => {
    fc.assert(
      fc.property(fc.integer({ min: -100_000_000, max: 100_000_000 }), (cents) => {
        const expected = intl.format(cents / 100).replace(/\s/u, ' ');
        expect(formatBrl(cents)).toBe(expected);
        expect(formatBrl(cents)).toBe(expected);
      }),
      { numRuns: 5000 },
    );
  });
});
