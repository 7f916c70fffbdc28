import QRCode from 'qrcode';
import type { QRCodeMaskPattern } from 'qrcode';
import { ModuleBits, maskPenalty } from './qr-penalty.js';
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
 * as bits, a word at a time (`maskPenalty`), with the same rules (`qrcode/lib/core/mask-pattern.js`:
 * N1 runs, N2 blocks, N3 finder-like patterns, N4 dark share) and the same tie-break (the lowest mask
 * number wins).
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
  const masked0 = ModuleBits.of(modules.data, size);
  let best = 0;
  let lowest = maskPenalty(masked0);
  const candidate = new ModuleBits(size);
  for (let mask = 1; mask < MASKS; mask++) {
    candidate.xorOf(masked0, layout.flipBits[mask]!);
    const bits = FORMAT_BITS[mask]!;
    for (const [bit, row, col] of layout.formatCells) candidate.set(row, col, (bits >> bit) & 1);
    const score = maskPenalty(candidate);
    if (score < lowest) {
      lowest = score;
      best = mask;
    }
  }
  if (best === 0) return { size, data: modules.data };
  const data = modules.data;
  const flips = layout.flips[best]!;
  for (let i = 0; i < data.length; i++) data[i] = data[i]! ^ flips[i]!;
  for (const [bit, row, col] of layout.formatCells) data[row * size + col] = (FORMAT_BITS[best]! >> bit) & 1;
  return { size, data };
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
 * The 30 format-information cells of a symbol of this size, as [bit, row, col]: each of the 15
 * bits is written twice, once beside the top-left finder and once split between the other two
 * (the placement of `qrcode`'s setupFormatInfo).
 */
function formatCellsFor(size: number): Array<[number, number, number]> {
  const cells: Array<[number, number, number]> = [];
  for (let bit = 0; bit < 15; bit++) {
    const row = bit < 6 ? bit : bit < 8 ? bit + 1 : size - 15 + bit;
    const col = bit < 8 ? size - bit - 1 : bit < 9 ? 7 : 14 - bit;
    cells.push([bit, row, 8], [bit, 8, col]);
  }
  return cells;
}

/** The 15-bit format information of level M with each mask, read from the library's own symbols. */
const FORMAT_BITS = Array.from({ length: MASKS }, (_, mask) => {
  const maskPattern = mask as QRCodeMaskPattern;
  const { modules } = QRCode.create('0', { errorCorrectionLevel: ERROR_CORRECTION, maskPattern });
  let bits = 0;
  for (const [bit, row, col] of formatCellsFor(modules.size))
    bits |= modules.data[row * modules.size + col]! << bit;
  return bits;
});

interface Layout {
  /** Per mask, which modules differ from mask 0: data modules only, function patterns never. */
  flips: Uint8Array[];
  /** The same as bits, to derive each candidate from mask 0 a word at a time. */
  flipBits: ModuleBits[];
  formatCells: Array<[number, number, number]>;
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
  layout = {
    flips,
    flipBits: flips.map((flip) => ModuleBits.of(flip, size)),
    formatCells: formatCellsFor(size),
  };
  layouts.set(size, layout);
  return layout;
}
