import type { QRCodeSegment } from 'qrcode';

/**
 * The shortest split of a text into QR segments (numeric, alphanumeric, byte), for error correction
 * level M: what `QRCode.create(text)` works out itself, in a fraction of its time.
 *
 * `qrcode` finds its split with a Dijkstra search over a graph of string-keyed nodes (`dijkstrajs`),
 * which was ~40% of a Pix charge's QR time (~180 of ~390 µs for a typical BR Code). The same
 * question is a dynamic program over the characters with six states: the mode of the segment the
 * character ends, and for numeric and alphanumeric segments their length modulo 3 or 2, which is
 * what the next character costs (digits take 10 bits per 3, alphanumerics 11 per 2). Every segment
 * also pays its 4-bit mode and its character count, whose width depends on the version band, so the
 * program runs per band, smallest first, and keeps the first split that fits the band's largest
 * version. The result is the fewest bits possible, never more than qrcode's own split (whose graph
 * weighs each edge from the segments before it, a heuristic): the same version or a smaller one.
 * Kanji mode is not used (qrcode uses it only when given a Shift JIS converter).
 */
export function qrSegments(text: string): QRCodeSegment[] {
  const chars = Array.from(text); // code points: a byte segment never splits a surrogate pair
  let split: QRCodeSegment[] = [];
  for (const band of BANDS) {
    const { bits, segments } = shortestSplit(chars, band);
    split = segments;
    if (bits <= band.capacityBits) break;
  }
  // Nothing fits even version 40: qrcode then refuses the segments as it refuses the text.
  return split;
}

interface Band {
  /** Data bits of the band's largest version at level M: versions 9, 26 and 40. */
  capacityBits: number;
  /** Character count indicator widths (ISO/IEC 18004 table 3). */
  numericCount: number;
  alphanumericCount: number;
  byteCount: number;
}

/**
 * Versions 1-9, 10-26 and 27-40. The capacities are qrcode's own (`getCapacity(v, M, MIXED)` of
 * `qrcode/lib/core/version.js`; the tests compare them). A segment can never outgrow its count
 * indicator here: the longest one that could (255 bytes in versions 1-9, 4,095 digits or 2,047
 * alphanumerics in 10-26) needs more bits than the band holds.
 */
const BANDS: Band[] = [
  { capacityBits: 1456, numericCount: 10, alphanumericCount: 9, byteCount: 8 },
  { capacityBits: 8496, numericCount: 12, alphanumericCount: 11, byteCount: 16 },
  { capacityBits: 18672, numericCount: 14, alphanumericCount: 13, byteCount: 16 },
];

export const QR_SEGMENT_BANDS: ReadonlyArray<Readonly<Band>> = BANDS;

const ALPHANUMERIC = new Set('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:');

/*
 * States, for the segment a character ends: numeric with 1, 2 or 0 (3, 6…) characters modulo 3,
 * alphanumeric with 1 or 0 (2, 4…) modulo 2, byte.
 */
const N1 = 0;
const N2 = 1;
const N0 = 2;
const A1 = 3;
const A0 = 4;
const B = 5;
const STATES = 6;
const MODE_OF: Array<'numeric' | 'alphanumeric' | 'byte'> = [
  'numeric',
  'numeric',
  'numeric',
  'alphanumeric',
  'alphanumeric',
  'byte',
];
const NONE = 0x3fffffff;

function utf8Length(char: string): number {
  const code = char.codePointAt(0)!;
  // A lone surrogate is written as U+FFFD (3 bytes), as Buffer.from and TextEncoder both do.
  return code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
}

function shortestSplit(chars: string[], band: Band): { bits: number; segments: QRCodeSegment[] } {
  const n = chars.length;
  // cost[i * STATES + s]: fewest bits for chars[0..i] with chars[i] ending a segment in state s.
  const cost = new Int32Array(n * STATES).fill(NONE);
  // from[i * STATES + s]: the state of chars[i - 1] on that path; fresh: chars[i] opens a segment.
  const from = new Int8Array(n * STATES);
  const fresh = new Uint8Array(n * STATES);
  const headerN = 4 + band.numericCount;
  const headerA = 4 + band.alphanumericCount;
  const headerB = 4 + band.byteCount;
  for (let i = 0; i < n; i++) {
    const char = chars[i]!;
    const here = i * STATES;
    const before = here - STATES;
    // The cheapest way to have ended the previous character, whatever its segment: a new one starts.
    let best = 0;
    let bestState = -1;
    if (i > 0) {
      best = NONE;
      for (let s = 0; s < STATES; s++) {
        if (cost[before + s]! < best) {
          best = cost[before + s]!;
          bestState = s;
        }
      }
    }
    const set = (state: number, continued: number, previous: number, opened: number) => {
      // Continuing the segment wins a tie: fewer segments for the same bits.
      if (continued <= opened) {
        cost[here + state] = continued;
        from[here + state] = previous;
      } else {
        cost[here + state] = opened;
        from[here + state] = bestState;
        fresh[here + state] = 1;
      }
    };
    if (char >= '0' && char <= '9') {
      set(N1, i > 0 ? cost[before + N0]! + 4 : NONE, N0, best + headerN + 4);
      if (i > 0) {
        cost[here + N2] = cost[before + N1]! + 3;
        from[here + N2] = N1;
        cost[here + N0] = cost[before + N2]! + 3;
        from[here + N0] = N2;
      }
    }
    if (ALPHANUMERIC.has(char)) {
      set(A1, i > 0 ? cost[before + A0]! + 6 : NONE, A0, best + headerA + 6);
      if (i > 0) {
        cost[here + A0] = cost[before + A1]! + 5;
        from[here + A0] = A1;
      }
    }
    const bytes = 8 * utf8Length(char);
    set(B, i > 0 ? cost[before + B]! + bytes : NONE, B, best + headerB + bytes);
  }
  if (n === 0) return { bits: 0, segments: [] };

  let state = 0;
  for (let s = 1; s < STATES; s++)
    if (cost[(n - 1) * STATES + s]! < cost[(n - 1) * STATES + state]!) state = s;
  const bits = cost[(n - 1) * STATES + state]!;
  // Walk back, collecting each segment's characters in reverse.
  const segments: QRCodeSegment[] = [];
  let end = n;
  for (let i = n - 1; i >= 0; i--) {
    const at = i * STATES + state;
    if (fresh[at] === 1) {
      segments.push(segmentOf(MODE_OF[state]!, chars.slice(i, end).join('')));
      end = i;
    }
    state = from[at]!;
  }
  segments.reverse();
  return { bits, segments };
}

function segmentOf(mode: 'numeric' | 'alphanumeric' | 'byte', data: string): QRCodeSegment {
  return mode === 'byte' ? { mode, data: Buffer.from(data, 'utf8') } : { mode, data };
}
