import { createRequire } from 'node:module';
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import QRCode from 'qrcode';
import type { QRCodeSegment } from 'qrcode';
import { QR_SEGMENT_BANDS, qrSegments } from '../../src/platform/brcode/qr-segments.js';
import { typicalBrCodes } from './pix-test-helpers.js';

// qrcode's internals, to hold the split to the library's own accounting.
const require = createRequire(import.meta.url);
interface ModeObject {
  bit: number;
}
const Mode = require('qrcode/lib/core/mode.js') as {
  MIXED: ModeObject;
  NUMERIC: ModeObject;
  ALPHANUMERIC: ModeObject;
  BYTE: ModeObject;
  getCharCountIndicator(mode: ModeObject, version: number): number;
};
const Version = require('qrcode/lib/core/version.js') as {
  getCapacity(version: number, level: unknown, mode: ModeObject): number;
};
const Level = require('qrcode/lib/core/error-correction-level.js') as { M: unknown };

const M = { errorCorrectionLevel: 'M' } as const;

/** Data bits of qrcode's segments in this version: mode, count and data bits of each. */
function bitsOf(segments: QRCode.GeneratedQRCodeSegment[], version: number): number {
  return segments.reduce(
    (sum, s) => sum + 4 + Mode.getCharCountIndicator(s.mode as ModeObject, version) + s.getBitsLength(),
    0,
  );
}

function textOf(segments: QRCodeSegment[]): string {
  return segments
    .map((s) => (typeof s.data === 'string' ? s.data : Buffer.from(s.data as Uint8Array).toString('utf8')))
    .join('');
}

function compare(text: string): void {
  const library = QRCode.create(text, M);
  const segments = qrSegments(text);
  const ours = QRCode.create(segments, M);
  expect(textOf(segments)).toBe(text);
  expect(ours.version).toBeLessThanOrEqual(library.version);
  expect(bitsOf(ours.segments, library.version)).toBeLessThanOrEqual(
    bitsOf(library.segments, library.version),
  );
}

describe('qrSegments', () => {
  it('uses qrcode’s own capacities and count widths for the three version bands', () => {
    [9, 26, 40].forEach((version, band) => {
      const expected = QR_SEGMENT_BANDS[band]!;
      expect(Version.getCapacity(version, Level.M, Mode.MIXED)).toBe(expected.capacityBits);
      expect(Mode.getCharCountIndicator(Mode.NUMERIC, version)).toBe(expected.numericCount);
      expect(Mode.getCharCountIndicator(Mode.ALPHANUMERIC, version)).toBe(expected.alphanumericCount);
      expect(Mode.getCharCountIndicator(Mode.BYTE, version)).toBe(expected.byteCount);
    });
  });

  it('splits a BR Code into the modes that fit each run', () => {
    const payload =
      '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';
    const segments = qrSegments(payload);
    expect(textOf(segments)).toBe(payload);
    expect(segments[0]).toEqual({ mode: 'numeric', data: '00020126580014' });
    expect(new Set(segments.map((s) => s.mode))).toEqual(new Set(['numeric', 'alphanumeric', 'byte']));
    // Never a bigger symbol than qrcode's own split; here a smaller one.
    expect(QRCode.create(segments, M).version).toBeLessThanOrEqual(QRCode.create(payload, M).version);
  });

  it('never needs more bits or a larger version than qrcode’s own split, for random BR Codes', () => {
    fc.assert(fc.property(typicalBrCodes(), compare), { numRuns: 300 });
  });

  it('nor for any text: digits, alphanumerics, other ASCII, any Unicode, every version band', () => {
    const pieces = fc.oneof(
      fc.stringMatching(/^[0-9]{1,40}$/),
      fc.stringMatching(/^[0-9A-Z $%*+\-./:]{1,40}$/),
      fc.string({ minLength: 1, maxLength: 40 }),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 10 }),
    );
    fc.assert(
      fc.property(
        fc.array(pieces, { minLength: 1, maxLength: 60 }).map((parts) => parts.join('')),
        compare,
      ),
      { numRuns: 300 },
    );
  });

  it('lets qrcode refuse what even version 40 cannot hold', () => {
    expect(() => QRCode.create(qrSegments('a'.repeat(2400)), M)).toThrow(/too big/);
  });
});
