import QRCode from 'qrcode';
import type { QRCodeMaskPattern } from 'qrcode';
import { qrSegments } from './qr-segments.js';

/** A QR symbol's modules, row by row, 1 = dark: `qrcode`'s own matrix layout. */
export interface QrSymbol {
  size: number;
  data: Uint8Array;
}

const ERROR_CORRECTION = 'M';
const MASKS = 8;

/**
 * The symbol `QRCode.create(qrSegments(payload), { errorCorrectionLevel: 'M' })` makes, module for
 * module, in a fraction of the time `QRCode.create(payload, …)` takes.
 *
 * The split into segments is `qrSegments`'s (the fewest bits, where qrcode's own search was ~40% of
 * the QR time), so the version is the one qrcode picks for the text or a smaller one.
 *
 * `qrcode` chooses the mask as the standard says (the lowest penalty of the eight), but scores each
 * candidate cell by cell through method calls, and that was half of a Pix charge's QR time. Here
 * the library builds the symbol with mask 0, and the eight candidates are derived from it and scored
 * over plain byte arrays with the same rules (`qrcode/lib/core/mask-pattern.js`: N1 runs, N2 blocks,
 * N3 finder-like patterns, N4 dark share) and the same tie-break (the lowest mask number wins).
 * The tests compare the result with the library's own choice on many payloads.
 */
export function qrSymbol(payload: string): QrSymbol {
  // An empty text is left to qrcode to refuse, as before.
  const { modules } = QRCode.create(payload === '' ? payload : qrSegments(payload), {
    errorCorrectionLevel: ERROR_CORRECTION,
    maskPattern: 0,
  });
  const { size } = modules;
  const layout = layoutFor(size, modules.reservedBit);
  const masked0 = modules.data;
  let best = masked0;
  let lowest = penalty(masked0, size);
  const candidate = new Uint8Array(masked0.length);
  for (let mask = 1; mask < MASKS; mask++) {
    const flip = layout.flips[mask]!;
    for (let i = 0; i < candidate.length; i++) candidate[i] = masked0[i]! ^ flip[i]!;
    writeFormatBits(candidate, layout.formatCells, FORMAT_BITS[mask]!);
    const score = penalty(candidate, size);
    if (score < lowest) {
      lowest = score;
      best = candidate.slice();
    }
  }
  return { size, data: best };
}

/** Whether mask `mask` darkens (flips) the module at row `i`, column `j` (ISO/IEC 18004, 7.8.2). */
function maskAt(mask: number, i: number, j: number): boolean {
  switch (mask) {
    case 0:
      return (i + j) % 2 === 0;
    case 1:
      return i % 2 === 0;
    case 2:
      return j % 3 === 0;
    case 3:
      return (i + j) % 3 === 0;
    case 4:
      return (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0;
    case 5:
      return ((i * j) % 2) + ((i * j) % 3) === 0;
    case 6:
      return (((i * j) % 2) + ((i * j) % 3)) % 2 === 0;
    default:
      return (((i * j) % 3) + ((i + j) % 2)) % 2 === 0;
  }
}

/**
 * The 30 format-information cells of a symbol of this size, as [bit, index] pairs: each of the 15
 * bits is written twice, once beside the top-left finder and once split between the other two
 * (the placement of `qrcode`'s setupFormatInfo).
 */
function formatCellsFor(size: number): Array<[number, number]> {
  const cells: Array<[number, number]> = [];
  for (let bit = 0; bit < 15; bit++) {
    const row = bit < 6 ? bit : bit < 8 ? bit + 1 : size - 15 + bit;
    const col = bit < 8 ? size - bit - 1 : bit < 9 ? 7 : 14 - bit;
    cells.push([bit, row * size + 8], [bit, 8 * size + col]);
  }
  return cells;
}

function writeFormatBits(data: Uint8Array, cells: Array<[number, number]>, bits: number): void {
  for (const [bit, index] of cells) data[index] = (bits >> bit) & 1;
}

/** The 15-bit format information of level M with each mask, read from the library's own symbols. */
const FORMAT_BITS = Array.from({ length: MASKS }, (_, mask) => {
  const maskPattern = mask as QRCodeMaskPattern;
  const { modules } = QRCode.create('0', { errorCorrectionLevel: ERROR_CORRECTION, maskPattern });
  let bits = 0;
  for (const [bit, index] of formatCellsFor(modules.size)) bits |= modules.data[index]! << bit;
  return bits;
});

interface Layout {
  /** Per mask, which modules differ from mask 0: data modules only, function patterns never. */
  flips: Uint8Array[];
  formatCells: Array<[number, number]>;
}

/** The reserved (function) modules depend on the version alone, that is on the size: kept per size. */
const layouts = new Map<number, Layout>();

function layoutFor(size: number, reserved: Uint8Array): Layout {
  let layout = layouts.get(size);
  if (layout) return layout;
  const flips = Array.from({ length: MASKS }, (_, mask) => {
    const flip = new Uint8Array(size * size);
    for (let i = 0; i < size; i++) {
      for (let j = 0; j < size; j++) {
        if (!reserved[i * size + j] && maskAt(mask, i, j) !== maskAt(0, i, j)) flip[i * size + j] = 1;
      }
    }
    return flip;
  });
  layout = { flips, formatCells: formatCellsFor(size) };
  layouts.set(size, layout);
  return layout;
}

/*
 * The scoring below is branch-free on purpose: the colours of a real symbol are random to the CPU's
 * branch predictor, and with if/else per module the same loops ran 2.5x slower on varying symbols
 * than on one repeated symbol. `(x - 1) >>> 31` is 1 when x is 0 (for small non-negative x), else 0.
 */

/** N1 points for a module that makes its run `run` long: 3 on reaching 5, then 1 per module. */
const runPoints = (run: number) => 3 * (((run ^ 5) - 1) >>> 31) + ((5 - run) >>> 31);

/** N3: the 11-module windows 1011101 0000 and 0000 1011101 (a finder-like 1:1:3:1:1 pattern). */
const finderLike = (bits: number) => (((bits ^ 0x5d0) - 1) >>> 31) + (((bits ^ 0x05d) - 1) >>> 31);

/** The standard's penalty score (N1 + N2 + N3 + N4), as `qrcode` computes it. */
export function penalty(data: Uint8Array, size: number): number {
  let runs = 0; // N1: 3 + (length - 5) for each run of 5 or more same-coloured modules
  let patterns = 0; // N3, counted where a full 11-module window ends
  let blocks = 0; // N2: 2x2 blocks of one colour
  let dark = 0; // N4
  for (let a = 0; a < size; a++) {
    let rowRun = 0;
    let colRun = 0;
    let rowBits = 0;
    let colBits = 0;
    let lastRow = data[a * size]!;
    let lastCol = data[a]!;
    for (let b = 0; b < size; b++) {
      const inRow = data[a * size + b]!; // along row a
      const inCol = data[b * size + a]!; // down column a
      dark += inRow;
      rowRun = rowRun * (1 ^ inRow ^ lastRow) + 1;
      colRun = colRun * (1 ^ inCol ^ lastCol) + 1;
      runs += runPoints(rowRun) + runPoints(colRun);
      lastRow = inRow;
      lastCol = inCol;
      rowBits = ((rowBits << 1) & 0x7ff) | inRow;
      colBits = ((colBits << 1) & 0x7ff) | inCol;
      if (b >= 10) patterns += finderLike(rowBits) + finderLike(colBits);
    }
  }
  for (let i = 0; i < size - 1; i++) {
    for (let j = 0; j < size - 1; j++) {
      const at = i * size + j;
      const sum = data[at]! + data[at + 1]! + data[at + size]! + data[at + size + 1]!;
      blocks += ((sum & 3) - 1) >>> 31; // 0 or 4 dark modules
    }
  }
  const total = size * size;
  const deviation = Math.abs(Math.ceil((dark * 100) / total / 5) - 10);
  return runs + blocks * 3 + patterns * 40 + deviation * 10;
}
