import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  buildBrCode,
  crc16Hex,
  foldAndTruncate,
  parseBrCode,
  type BrCodeInput,
  type PixAccount,
} from '../../src/platform/brcode/index.js';

// Characters that exercise folding: accents (NFD-decomposable), things with no ASCII form (dropped),
// control characters and astral-plane emoji (dropped), and runs of spaces (collapsed).
const special = Array.from('áàâãäçéêèíìóôõöúüñÁÀÂÃÇÉÊÍÓÔÕÚÜÑ ßæøœ€ºª😀👍🏽\t\n\u0000\u200b');
const textChar = fc.oneof(
  fc.constantFrom(...special),
  fc.string({ minLength: 1, maxLength: 1 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
);
const text = (maxLength: number) => fc.array(textChar, { maxLength }).map((chars) => chars.join(''));
const nonEmptyText = (maxLength: number, foldedMax: number) =>
  text(maxLength).filter((t) => foldAndTruncate(t, foldedMax) !== '');

const digits = (n: number) => fc.stringMatching(new RegExp(`^\\d{${n}}$`));
const pixKey = fc.oneof(
  fc.emailAddress().filter((e) => e.length <= 77),
  fc.tuple(fc.integer({ min: 11, max: 99 }), digits(8)).map(([ddd, n]) => `+55${ddd}9${n}`),
  digits(11),
  digits(14),
  fc.uuid(),
);
const url = fc
  .tuple(fc.constantFrom('pix.example.com', 'qr.banco.com.br', 'api-pix.psp.io'), fc.uuid())
  .map(([host, id]) => `${host}/qr/v2/${id.replace(/-/g, '')}`);
const account: fc.Arbitrary<PixAccount> = fc.oneof(
  pixKey.map((k) => ({ pixKey: k })),
  url.map((u) => ({ url: u })),
);
const amount = fc.oneof(
  fc.constantFrom(0.01, 1_000_000, 22),
  fc.integer({ min: 1, max: 100_000_000 }).map((cents) => cents / 100),
);
const txid = fc.oneof(fc.constant('***'), fc.stringMatching(/^[A-Za-z0-9]{1,25}$/));

const input: fc.Arbitrary<BrCodeInput> = fc
  .record(
    {
      account,
      merchantName: nonEmptyText(40, 25),
      merchantCity: nonEmptyText(25, 15),
      amount,
      txid,
      additionalInfo: text(90),
      merchantCategoryCode: digits(4),
      singleUse: fc.boolean(),
    },
    { requiredKeys: ['account', 'merchantName', 'merchantCity'] },
  )
  .map(({ account: acc, ...rest }) => ({ ...acc, ...rest }));

/** Room left for field 26-02 once GUI (18) and key/URL (4 + length) are in, within 99. */
function infoRoom(acc: PixAccount): number {
  const id = acc.pixKey ?? acc.url ?? '';
  return Math.max(0, 99 - 18 - (4 + id.length) - 4);
}

describe('BR Code round trip (fast-check)', () => {
  it('parse(build(x)) equals x with text folded and defaults applied; CRC verifies', () => {
    fc.assert(
      fc.property(input, (x) => {
        const payload = buildBrCode(x);
        expect(payload).toMatch(/^[\x20-\x7e]+$/);
        expect(payload.slice(-8, -4)).toBe('6304');
        expect(payload.slice(-4)).toBe(crc16Hex(payload.slice(0, -4)));

        const acc: PixAccount = x.pixKey !== undefined ? { pixKey: x.pixKey } : { url: x.url! };
        const info = x.additionalInfo === undefined ? '' : foldAndTruncate(x.additionalInfo, infoRoom(acc));
        expect(parseBrCode(payload)).toEqual({
          ...acc,
          merchantName: foldAndTruncate(x.merchantName, 25),
          merchantCity: foldAndTruncate(x.merchantCity, 15),
          ...(x.amount !== undefined && { amount: x.amount }),
          txid: x.txid ?? '***',
          ...(info !== '' && { additionalInfo: info }),
          merchantCategoryCode: x.merchantCategoryCode ?? '0000',
          singleUse: x.singleUse === true,
        });
      }),
      { numRuns: 2000 },
    );
  });

  it.each([0.01, 1_000_000, 22, 1234.5, 0.1, 9_999_999_999.99])(
    'amount %s survives with two decimals',
    (value) => {
      const payload = buildBrCode({
        pixKey: 'a@b.co',
        merchantName: 'Loja',
        merchantCity: 'Recife',
        amount: value,
      });
      expect(payload).toContain(`54${String(value.toFixed(2).length).padStart(2, '0')}${value.toFixed(2)}`);
      expect(parseBrCode(payload).amount).toBe(value);
    },
  );
});
