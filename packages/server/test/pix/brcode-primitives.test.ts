import { describe, it, expect } from 'vitest';
import { crc16CcittFalse, crc16Hex, foldAndTruncate, foldToAscii } from '../../src/platform/brcode/index.js';

describe('crc16 (CCITT-FALSE)', () => {
  it('gives the catalogue check value for "123456789"', () => {
    expect(crc16CcittFalse('123456789')).toBe(0x29b1);
  });

  it('is 0xFFFF for empty input and pads to 4 uppercase hex digits', () => {
    expect(crc16Hex('')).toBe('FFFF');
    // A payload whose CRC is below 0x1000 must keep its leading zero.
    const body = '00020126580014br.gov.bcb.pix0136e57b119f-3f91-4734-93f0-29d6a9c02b0a0211CestaLivres';
    const short = Array.from({ length: 5000 }, (_, i) => `${body}${i}6304`).find(
      (s) => crc16CcittFalse(s) < 0x1000,
    );
    expect(short).toBeDefined();
    expect(crc16Hex(short!)).toMatch(/^0[0-9A-F]{3}$/);
  });

  it('refuses non-ASCII input', () => {
    expect(() => crc16CcittFalse('São')).toThrow(RangeError);
  });
});

describe('ASCII folding', () => {
  it.each([
    ['São Paulo', 'Sao Paulo'],
    ['Florianópolis', 'Florianopolis'],
    ['JOÃO DA CONCEIÇÃO', 'JOAO DA CONCEICAO'],
    ['Açaí & Cia', 'Acai & Cia'],
    ['Müller Straße', 'Muller Strae'],
    ['Loja 😀 Legal', 'Loja Legal'],
    ['  tab\there\nnewline  ', 'tabherenewline'],
    ['Ñandú', 'Nandu'],
    ['😀👍🏽', ''],
  ])('%j -> %j', (input, expected) => {
    expect(foldToAscii(input)).toBe(expected);
  });

  it('measures length after folding and trims a space left by the cut', () => {
    expect(foldAndTruncate('São José dos Campos', 15)).toBe('Sao Jose dos Ca');
    expect(foldAndTruncate('Padaria São João do Jardim Paulista', 25)).toBe('Padaria Sao Joao do Jardi');
    expect(foldAndTruncate('Ótica Visão Clara e Nítida', 20)).toBe('Otica Visao Clara e');
  });
});
