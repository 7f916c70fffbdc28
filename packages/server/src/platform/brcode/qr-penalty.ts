/**
 * A QR symbol's modules as bits, 32 to a word, twice: line by line along the rows and along the
 * columns, so that the mask penalty reads both directions the same way, 32 modules at a time.
 * Bit j of a line is bit (j % 32) of its word j / 32; 1 = dark.
 */
export class ModuleBits {
  /** Words per line. */
  readonly words: number;
  readonly rows: Uint32Array;
  readonly cols: Uint32Array;

  constructor(readonly size: number) {
    this.words = Math.ceil(size / 32);
    this.rows = new Uint32Array(size * this.words);
    this.cols = new Uint32Array(size * this.words);
  }

  /** The bits of `data`, a size x size array of modules row by row (1 = dark), as `qrcode` keeps them. */
  static of(data: Uint8Array, size: number): ModuleBits {
    const bits = new ModuleBits(size);
    for (let row = 0; row < size; row++) {
      for (let col = 0; col < size; col++) if (data[row * size + col]) bits.set(row, col, 1);
    }
    return bits;
  }

  set(row: number, col: number, dark: number): void {
    setBit(this.rows, row * this.words + (col >>> 5), col & 31, dark);
    setBit(this.cols, col * this.words + (row >>> 5), row & 31, dark);
  }

  /** This becomes `a` XOR `b` (two symbols of this size). */
  xorOf(a: ModuleBits, b: ModuleBits): void {
    for (let i = 0; i < this.rows.length; i++) {
      this.rows[i] = a.rows[i]! ^ b.rows[i]!;
      this.cols[i] = a.cols[i]! ^ b.cols[i]!;
    }
  }
}

function setBit(words: Uint32Array, at: number, bit: number, on: number): void {
  words[at] = on ? words[at]! | (1 << bit) : words[at]! & ~(1 << bit);
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/** The bits of word `w` of a window start j that has `length` modules left in a line of `size`. */
function startsWithRoom(w: number, size: number, length: number): number {
  const room = size - length + 1 - 32 * w; // how many starts in this word leave room for the window
  if (room >= 32) return 0xffffffff;
  return room <= 0 ? 0 : (1 << room) - 1;
}

/**
 * N1 + N3 points of the lines in `lines` (one direction): runs of 5 or more modules of one colour
 * (3 points, then 1 per module past 5) and the finder-like windows (40 points each): 1011101 0000
 * and 0000 1011101, dark = 1, first module first. The window's eleven modules are eleven shifted
 * copies of the word held in locals (`m0`..`m10`: bit j = the line's module j + k), and both
 * windows written out as one AND each: this loop runs for every line of each of the eight masks of
 * every Pix QR, and an array of shifts with a table-driven AND was twice as slow.
 */
function linePoints(lines: Uint32Array, size: number, words: number): number {
  let runPoints = 0;
  let windows = 0;
  for (let line = 0; line < size; line++) {
    const at = line * words;
    for (let w = 0; w < words; w++) {
      const m0 = lines[at + w]!;
      const next = w + 1 < words ? lines[at + w + 1]! : 0;
      const before = w > 0 ? lines[at + w - 1]! : 0;
      const m1 = (m0 >>> 1) | (next << 31);
      const m2 = (m0 >>> 2) | (next << 30);
      const m3 = (m0 >>> 3) | (next << 29);
      const m4 = (m0 >>> 4) | (next << 28);
      // A start j whose module and the four after it are one colour; it opens a run where the
      // module before differs (or j is the first): a run of n >= 5 holds n - 4 such starts, and
      // scores 3 + (n - 5) = (n - 4) + 2.
      const fiveAlike = ~(m0 ^ m1) & ~(m0 ^ m2) & ~(m0 ^ m3) & ~(m0 ^ m4);
      const five = fiveAlike & startsWithRoom(w, size, 5);
      const opensRun = (m0 ^ ((m0 << 1) | (before >>> 31))) | (w === 0 ? 1 : 0);
      runPoints += popcount(five >>> 0) + 2 * popcount((five & opensRun) >>> 0);
      const m5 = (m0 >>> 5) | (next << 27);
      const m6 = (m0 >>> 6) | (next << 26);
      const m9 = (m0 >>> 9) | (next << 23);
      // Both windows: module 1 light, 4 dark, 5 light, 6 dark, 9 light.
      const shared = startsWithRoom(w, size, 11) & ~m1 & m4 & ~m5 & m6 & ~m9;
      if (shared === 0) continue;
      const m7 = (m0 >>> 7) | (next << 25);
      const m8 = (m0 >>> 8) | (next << 24);
      const m10 = (m0 >>> 10) | (next << 22);
      const finderFirst = shared & m0 & m2 & m3 & ~m7 & ~m8 & ~m10;
      const finderLast = shared & ~m0 & ~m2 & ~m3 & m7 & m8 & m10;
      windows += popcount(finderFirst >>> 0) + popcount(finderLast >>> 0);
    }
  }
  return runPoints + 40 * windows;
}

/** N2: 3 points per 2x2 block of one colour, blocks overlapping. */
function blockPoints(rows: Uint32Array, size: number, words: number): number {
  let blocks = 0;
  for (let row = 0; row + 1 < size; row++) {
    for (let w = 0; w < words; w++) {
      const top = rows[row * words + w]!;
      const bottom = rows[(row + 1) * words + w]!;
      const topNext = w + 1 < words ? rows[row * words + w + 1]! : 0;
      const bottomNext = w + 1 < words ? rows[(row + 1) * words + w + 1]! : 0;
      const topRight = (top >>> 1) | (topNext << 31);
      const bottomRight = (bottom >>> 1) | (bottomNext << 31);
      const alike = ~(top ^ topRight) & ~(bottom ^ bottomRight) & ~(top ^ bottom);
      blocks += popcount((alike & startsWithRoom(w, size, 2)) >>> 0);
    }
  }
  return 3 * blocks;
}

/** N4: 10 points per 5% step that the dark share is away from half. */
function darkPoints(rows: Uint32Array, size: number): number {
  let dark = 0;
  for (const word of rows) dark += popcount(word);
  return 10 * Math.abs(Math.ceil((dark * 100) / (size * size) / 5) - 10);
}

/**
 * The standard's mask penalty (N1 + N2 + N3 + N4), as `qrcode/lib/core/mask-pattern.js` counts it,
 * over whole words: ~10x faster than module by module, and it is scored for each of the eight masks
 * of every Pix charge's QR.
 */
export function maskPenalty(bits: ModuleBits): number {
  const { size, words } = bits;
  return (
    linePoints(bits.rows, size, words) +
    linePoints(bits.cols, size, words) +
    blockPoints(bits.rows, size, words) +
    darkPoints(bits.rows, size)
  );
}
