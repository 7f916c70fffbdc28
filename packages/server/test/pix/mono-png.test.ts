import { describe, it, expect } from 'vitest';
import { PNG } from 'pngjs';
import { encodeMonochromePng } from '../../src/platform/brcode/mono-png.js';

describe('encodeMonochromePng', () => {
  // 11 cells at scale 3, margin 2 -> 45 px: rows that do not end on a byte boundary. Scale 8 with
  // margin 4 is the Pix QR's (a whole byte per cell); 13 and 17 span whole bytes and partial ones.
  it.each([
    [3, 2],
    [8, 4],
    [13, 1],
    [17, 3],
  ])(
    'writes each cell as scale x scale pixels inside a light margin (scale %i, margin %i; pngjs)',
    (scale, margin) => {
      const size = 11;
      const isDark = (row: number, col: number) => (row * 7 + col * 3) % 5 < 2;
      const image = PNG.sync.read(encodeMonochromePng({ size, isDark }, scale, margin));
      const side = (size + 2 * margin) * scale;
      expect([image.width, image.height]).toEqual([side, side]);
      for (let y = 0; y < side; y++) {
        for (let x = 0; x < side; x++) {
          const row = Math.floor(y / scale) - margin;
          const col = Math.floor(x / scale) - margin;
          const inside = row >= 0 && row < size && col >= 0 && col < size;
          const expected = inside && isDark(row, col) ? 0 : 255;
          const at = (y * side + x) * 4;
          expect([...image.data.subarray(at, at + 4)]).toEqual([expected, expected, expected, 255]);
        }
      }
    },
  );
});
