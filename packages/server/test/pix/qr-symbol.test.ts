import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import QRCode from 'qrcode';
import { qrSegments } from '../../src/platform/brcode/qr-segments.js';
import { qrSymbol } from '../../src/platform/brcode/qr-symbol.js';
import { typicalBrCodes } from './pix-test-helpers.js';

// The library's symbol for the same segments (qr-segments.test.ts holds the split to qrcode's own).
const library = (payload: string) => QRCode.create(qrSegments(payload), { errorCorrectionLevel: 'M' });

describe('qrSymbol', () => {
  it('is the symbol qrcode makes, module for module, for random BR Codes', () => {
    const masks = new Set<number>();
    fc.assert(
      fc.property(typicalBrCodes(), (payload) => {
        const expected = library(payload);
        masks.add(expected.maskPattern!);
        const symbol = qrSymbol(payload);
        expect(symbol.size).toBe(expected.modules.size);
        expect(Buffer.from(symbol.data).equals(Buffer.from(expected.modules.data))).toBe(true);
      }),
      { numRuns: 300 },
    );
    // The property only means something if the library's choice varied.
    expect(masks.size).toBeGreaterThan(3);
  });

  it('agrees with qrcode on any text, every version size included', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 600 }), (text) => {
        const expected = library(text);
        expect(Buffer.from(qrSymbol(text).data).equals(Buffer.from(expected.modules.data))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
