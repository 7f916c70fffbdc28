import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { createRequire } from 'node:module';
import { ModuleBits, maskPenalty } from '../../src/platform/brcode/qr-penalty.js';

interface LibraryMatrix {
  size: number;
  data: Uint8Array;
  get(row: number, col: number): number;
}
type Rule = (matrix: LibraryMatrix) => number;
/** qrcode's own penalty rules: the module the library scores its masks with (it has no types). */
const MaskPattern = createRequire(import.meta.url)('qrcode/lib/core/mask-pattern.js') as Record<
  'getPenaltyN1' | 'getPenaltyN2' | 'getPenaltyN3' | 'getPenaltyN4',
  Rule
>;

/** The library's own scoring of a size x size matrix, through the accessor it uses. */
function libraryPenalty(data: Uint8Array, size: number): number {
  const matrix: LibraryMatrix = { size, data, get: (row: number, col: number) => data[row * size + col]! };
  return (
    MaskPattern.getPenaltyN1(matrix) +
    MaskPattern.getPenaltyN2(matrix) +
    MaskPattern.getPenaltyN3(matrix) +
    MaskPattern.getPenaltyN4(matrix)
  );
}

describe('maskPenalty', () => {
  it("scores any matrix as qrcode's mask-pattern rules do, across word boundaries", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 11, max: 177 }).chain((size) =>
          fc.tuple(
            fc.constant(size),
            // Mostly one colour in runs, so long runs and finder-like windows happen often.
            fc.uint8Array({ minLength: size * size, maxLength: size * size }),
            fc.integer({ min: 1, max: 6 }),
          ),
        ),
        ([size, noise, runLength]) => {
          const data = new Uint8Array(size * size);
          let dark = 0;
          for (let i = 0; i < data.length; i++) {
            if (noise[i]! % runLength === 0) dark ^= 1;
            data[i] = dark;
          }
          expect(maskPenalty(ModuleBits.of(data, size))).toBe(libraryPenalty(data, size));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('counts the finder-like windows and runs that touch either end of a line', () => {
    const size = 33; // one module past a word
    const data = new Uint8Array(size * size);
    const window = [1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0];
    for (let k = 0; k < 11; k++) {
      data[k] = window[k]!; // row 0, from its first module
      data[size - 11 + k] = window[10 - k]!; // row 0, to its last module (0000 1011101)
      data[(21 + k) * size + 32] = window[k]!; // the last column, across the word boundary
    }
    expect(maskPenalty(ModuleBits.of(data, size))).toBe(libraryPenalty(data, size));
  });
});
