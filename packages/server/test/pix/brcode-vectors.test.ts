import { describe, it, expect } from 'vitest';
import { buildBrCode, parseBrCode, type BrCodeInput } from '../../src/platform/brcode/index.js';

// The three published payloads listed in issue 5. Build must reproduce them
// byte for byte, CRC included; parse must read back exactly these fields.
const vectors: { payload: string; input: BrCodeInput }[] = [
  {
    payload:
      '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D',
    input: {
      pixKey: '123e4567-e12b-12d1-a456-426655440000',
      merchantName: 'Fulano de Tal',
      merchantCity: 'BRASILIA',
    },
  },
  {
    payload:
      '00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***630464E4',
    input: {
      url: 'pix.example.com/8b3da2f39a4140d1a91abd93113bd441',
      merchantName: 'Fulano de Tal',
      merchantCity: 'BRASILIA',
      singleUse: true,
    },
  },
  {
    payload:
      '00020126730014br.gov.bcb.pix0136e57b119f-3f91-4734-93f0-29d6a9c02b0a0211CestaLivres520400005303986540522.005802BR5913Milena Savini6009Sao Paulo622605221wDQuczihqxiuSkkkLu0aS63040EA9',
    input: {
      pixKey: 'e57b119f-3f91-4734-93f0-29d6a9c02b0a',
      additionalInfo: 'CestaLivres',
      amount: 22,
      merchantName: 'Milena Savini',
      merchantCity: 'Sao Paulo',
      txid: '1wDQuczihqxiuSkkkLu0aS',
    },
  },
];

describe('BR Code published vectors', () => {
  it.each(vectors.map((v, i) => [i + 1, v] as const))(
    'builds vector %i exactly',
    (_n, { payload, input }) => {
      expect(buildBrCode(input)).toBe(payload);
    },
  );

  it.each(vectors.map((v, i) => [i + 1, v] as const))('parses vector %i', (_n, { payload, input }) => {
    expect(parseBrCode(payload)).toEqual({
      txid: '***',
      merchantCategoryCode: '0000',
      singleUse: false,
      ...input,
    });
  });

  it('builds the same vector from accented input (folded before lengths and CRC)', () => {
    expect(
      buildBrCode({
        pixKey: 'e57b119f-3f91-4734-93f0-29d6a9c02b0a',
        additionalInfo: 'Césta\u{1F600}Livres',
        amount: 22,
        merchantName: ' Milena   Savíni ',
        merchantCity: 'São Paulo',
        txid: '1wDQuczihqxiuSkkkLu0aS',
      }),
    ).toBe(vectors[2]!.payload);
  });
});
