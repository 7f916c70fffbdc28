import { describe, expect, it } from 'vitest';
import { crc16Hex, parseBrCode, parseCompositeBrCode } from '../../src/platform/brcode/index.js';

/** The composite codes of the API Pix 2.9.0 standard's examples (GET /rec/{idRec}?txid=). */
const JORNADA_3 =
  '00020101021226760014br.gov.bcb.pix2554pix.example.com/qr/v2/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***80800014br.gov.bcb.pix2558pix.example.com/qr/v2/rec/94ed2badcbc04c15b0bb7fa35319489063047741';
const JORNADA_4 =
  '00020101021226810014br.gov.bcb.pix2559pix.example.com/qr/v2/cobv/1e6c54d3ec9449b7a7fc53b6b0f998e75204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***80800014br.gov.bcb.pix2558pix.example.com/qr/v2/rec/3ffa640fa4f14080adccb949fa2dc0d06304A441';

/** Re-seals a hand-edited code with a correct CRC, so only the edit is wrong. */
const seal = (code: string) => {
  const body = code.slice(0, -4);
  return body + crc16Hex(body);
};

describe('parseCompositeBrCode: a payable code that also carries a Pix Automático recurrence (field 80)', () => {
  it('reads the standard’s Jornada 3 and Jornada 4 examples: the charge location and the recurrence location', () => {
    expect(parseCompositeBrCode(JORNADA_3)).toMatchObject({
      url: 'pix.example.com/qr/v2/8b3da2f39a4140d1a91abd93113bd441',
      recurrenceUrl: 'pix.example.com/qr/v2/rec/94ed2badcbc04c15b0bb7fa353194890',
      merchantName: 'Fulano de Tal',
      singleUse: true,
    });
    expect(parseCompositeBrCode(JORNADA_4).recurrenceUrl).toBe(
      'pix.example.com/qr/v2/rec/3ffa640fa4f14080adccb949fa2dc0d0',
    );
    // A plain payer's app reads it as the charge it pays: field 80 is one it may ignore.
    expect(parseBrCode(JORNADA_3).url).toBe('pix.example.com/qr/v2/8b3da2f39a4140d1a91abd93113bd441');
  });

  it.each<[string, string, RegExp]>([
    ['a changed character (CRC)', JORNADA_3.replace('Fulano', 'Fulana'), /CRC mismatch/],
    [
      'no field 80 (a plain dynamic code)',
      seal(JORNADA_3.replace(/8080.*(?=6304)/, '')),
      /field 80 .* is missing/,
    ],
    [
      'another GUI in field 80',
      seal(JORNADA_3.replace('80800014br.gov.bcb.pix', '80800014br.gov.bcb.xyz')),
      /field 80-00 \(GUI\)/,
    ],
    [
      'no location in field 80',
      seal(JORNADA_3.replace(/8080.*(?=6304)/, '80180014br.gov.bcb.pix')),
      /field 80-25 \(recurrence location\)/,
    ],
  ])('refuses %s', (_label, code, message) => {
    expect(() => parseCompositeBrCode(code)).toThrow(message);
  });

  it('a location of 77 characters, the most a 99-character template holds, passes; 78 no longer parses', () => {
    const withLocation = (length: number) => {
      const location = 'r'.repeat(length);
      const template = `0014br.gov.bcb.pix25${length}${location}`;
      return seal(JORNADA_3.replace(/8080.*(?=6304)/, `80${template.length}${template}`));
    };
    expect(parseCompositeBrCode(withLocation(77)).recurrenceUrl).toHaveLength(77);
    expect(() => parseCompositeBrCode(withLocation(78))).toThrow(/2-digit id and 2-digit length/);
  });
});
