import { describe, it, expect } from 'vitest';
import { BrCodeError, buildBrCode, parseBrCode, type BrCodeInput } from '../../src/platform/brcode/index.js';

const base: BrCodeInput = { pixKey: 'loja@example.com', merchantName: 'Loja', merchantCity: 'Recife' };

describe('buildBrCode: fitting display text', () => {
  it('truncates name to 25 and city to 15 after folding accents', () => {
    const parsed = parseBrCode(
      buildBrCode({
        ...base,
        merchantName: 'Padaria e Confeitaria São João Batista',
        merchantCity: 'São José dos Campos',
      }),
    );
    expect(parsed.merchantName).toBe('Padaria e Confeitaria Sao');
    expect(parsed.merchantCity).toBe('Sao Jose dos Ca');
  });

  it('writes the folded length, not the UTF-16 or UTF-8 length', () => {
    expect(buildBrCode({ ...base, merchantName: 'Conceição' })).toContain('5909Conceicao');
  });

  it('truncates additional info to the room left in field 26 and drops it when none is left', () => {
    const long = 'Pedido número 123 — obrigado pela preferência, volte sempre! '.repeat(3);
    const payload = buildBrCode({ ...base, additionalInfo: long });
    const info = parseBrCode(payload).additionalInfo!;
    expect(info.startsWith('Pedido numero 123 obrigado')).toBe(true);
    expect(payload).toContain('2699'); // field 26 filled to its 99-character limit
    const key77 = `${'k'.repeat(65)}@example.com`;
    expect(key77).toHaveLength(77);
    expect(
      parseBrCode(buildBrCode({ pixKey: key77, merchantName: 'a', merchantCity: 'b', additionalInfo: 'x' })),
    ).not.toHaveProperty('additionalInfo');
  });

  it('omits field 54 without an amount and field 01 unless single-use', () => {
    const payload = buildBrCode(base);
    expect(payload).toMatch(/^00020126/);
    expect(parseBrCode(payload)).not.toHaveProperty('amount');
    expect(buildBrCode({ ...base, singleUse: true })).toMatch(/^00020101021226/);
  });
});

describe('buildBrCode: rejecting identifiers and bad values', () => {
  it.each<[string, Partial<BrCodeInput>]>([
    ['url with scheme', { pixKey: undefined, url: 'https://pix.example.com/x' }],
    ['key with a space', { pixKey: 'a b@c.com' }],
    ['empty key', { pixKey: '' }],
    ['non-ASCII key', { pixKey: 'joão@example.com' }],
    ['key of 78 characters', { pixKey: `${'k'.repeat(66)}@example.com` }],
    ['txid with a dash', { txid: 'abc-123' }],
    ['txid of 26 characters', { txid: 'a'.repeat(26) }],
    ['empty txid', { txid: '' }],
    ['mcc of 3 digits', { merchantCategoryCode: '123' }],
    ['amount 0', { amount: 0 }],
    ['negative amount', { amount: -1 }],
    ['amount with 3 decimals', { amount: 0.001 }],
    ['0.1 + 0.2', { amount: 0.1 + 0.2 }],
    ['NaN amount', { amount: Number.NaN }],
    ['amount of 14 characters', { amount: 10_000_000_000 }],
    ['name that folds to nothing', { merchantName: '😀 ' }],
    ['empty city', { merchantCity: '' }],
  ])('%s', (_label, patch) => {
    expect(() => buildBrCode({ ...base, ...patch } as BrCodeInput)).toThrow(BrCodeError);
  });

  it('needs a key or a URL', () => {
    expect(() => buildBrCode({ merchantName: 'a', merchantCity: 'b' } as BrCodeInput)).toThrow(
      /pixKey or url/,
    );
  });
});
