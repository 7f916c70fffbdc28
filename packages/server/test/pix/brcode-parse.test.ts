import { describe, it, expect } from 'vitest';
import { BrCodeError, buildBrCode, crc16Hex, parseBrCode } from '../../src/platform/brcode/index.js';

const valid =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';

/** Re-seals a hand-edited body (everything before the CRC value) with a correct CRC. */
const seal = (bodyWithoutCrc: string) => `${bodyWithoutCrc}6304${crc16Hex(`${bodyWithoutCrc}6304`)}`;
const body = valid.slice(0, -8);

describe('parseBrCode: rejects malformed payloads with a clear error', () => {
  it.each<[string, string, RegExp]>([
    ['a wrong CRC', `${valid.slice(0, -4)}1D3E`, /CRC mismatch/],
    ['no CRC field', body, /must end with field 63/],
    ['a cut-off payload', valid.slice(10), /CRC mismatch/],
    ['a cut-off body, resealed', seal(body.slice(0, 40)), /declares 58 characters/],
    ['non-ASCII text', valid.replace('Fulano', 'Fulanó'), /printable ASCII/],
    ['an empty string', '', /printable ASCII/],
    [
      'a length running past the end',
      seal(body.replace('6008BRASILIA', '6009BRASILIA')),
      /declares|id and 2-digit/,
    ],
    ['a non-digit length', seal(body.replace('5802BR', '58x2BR')), /2-digit id and 2-digit length/],
    ['field 00 not first', seal(body.replace('000201', '') + '000201'), /field 00/],
    ['payload format 02', seal(body.replace('000201', '000202')), /field 00/],
    ['a repeated field', seal(`${body}5802BR`), /appears twice/],
    ['initiation method 13', seal(body.replace('000201', '000201010213')), /field 01/],
    ['another currency', seal(body.replace('5303986', '5303840')), /field 53/],
    ['another country', seal(body.replace('5802BR', '5802PT')), /field 58/],
    ['no merchant name', seal(body.replace('5913Fulano de Tal', '')), /field 59 .* missing/],
    ['a 26-character name', seal(body.replace('5913Fulano de Tal', `5926${'a'.repeat(26)}`)), /field 59/],
    ['a 16-character city', seal(body.replace('6008BRASILIA', `6016${'b'.repeat(16)}`)), /field 60/],
    ['no field 62', seal(body.replace('62070503***', '')), /field 62 .* missing/],
    ['a txid with a dash', seal(body.replace('62070503***', '62090505ab-cd')), /txid/],
    ['amount 0.00', seal(body.replace('5802BR', '54040.005802BR')), /greater than zero/],
    ['amount with a comma', seal(body.replace('5802BR', '54041,005802BR')), /field 54/],
    ['another GUI only', seal(body.replace('br.gov.bcb.pix', 'br.gov.bcb.xyz')), /no Pix merchant account/],
    [
      'both key and URL',
      seal(body.replace('26580014br.gov.bcb.pix', '26650014br.gov.bcb.pix2503a/b')),
      /exactly one of 01 \(key\) and 25/,
    ],
  ])('%s', (_label, payload, message) => {
    expect(() => parseBrCode(payload)).toThrow(BrCodeError);
    expect(() => parseBrCode(payload)).toThrow(message);
  });
});

describe('parseBrCode: accepts what other generators legitimately emit', () => {
  it('a lowercase CRC', () => {
    expect(parseBrCode(`${valid.slice(0, -4)}1d3d`).merchantName).toBe('Fulano de Tal');
  });

  it('initiation method 11 (reusable), an unknown template and an extra field-62 subfield', () => {
    const edited = body
      .replace('000201', '000201010211')
      .replace('62070503***', '62160503***5005abcde')
      .concat('80100006extras');
    const parsed = parseBrCode(seal(edited));
    expect(parsed.singleUse).toBe(false);
    expect(parsed.txid).toBe('***');
  });

  it('amounts with zero, one or two decimals', () => {
    for (const [text, value] of [
      ['5', 5],
      ['5.5', 5.5],
      ['1000000.00', 1_000_000],
    ] as const) {
      const payload = seal(body.replace('5802BR', `54${String(text.length).padStart(2, '0')}${text}5802BR`));
      expect(parseBrCode(payload).amount).toBe(value);
    }
  });

  it('a dynamic code built here parses as dynamic', () => {
    const parsed = parseBrCode(
      buildBrCode({
        url: 'pix.example.com/qr/v2/abc',
        merchantName: 'a',
        merchantCity: 'b',
        singleUse: true,
      }),
    );
    expect(parsed).toMatchObject({ url: 'pix.example.com/qr/v2/abc', singleUse: true });
    expect(parsed).not.toHaveProperty('pixKey');
  });
});
