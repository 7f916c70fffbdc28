import { describe, expect, it } from 'vitest';
import { parseBrCode } from '../../src/platform/brcode/index.js';
import { normalizePixKey } from '../../src/domain/pix/pix-key.js';
import { normalizePixSettings, pixReceiverFor, testPixKey } from '../../src/domain/pix/pix-settings.js';
import type { StoresTable } from '../../src/domain/stores/stores.js';
import { DEFAULT_STORE_SETTINGS, updateStore } from '../../src/domain/stores/stores.js';
import { describeEachDatabase } from '../support/test-api.js';

const store = (over: Partial<StoresTable> = {}): StoresTable => ({
  id: '0b7f3c1e-0000-4000-8000-000000000001',
  name: 'Padaria e Confeitaria São João Batista',
  handle: 'padaria',
  checkout_mode: 'test',
  pix_key: null,
  merchant_name: null,
  merchant_city: null,
  created_at: '2026-01-01T00:00:00.000Z',
  ...DEFAULT_STORE_SETTINGS,
  ...over,
});

describe('store Pix settings', () => {
  it('the test key is a stable, well-formed random key (UUID v4 layout) per store', () => {
    const key = testPixKey('store-a');
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(testPixKey('store-a')).toBe(key);
    expect(testPixKey('store-b')).not.toBe(key);
  });

  it('a new store charges in test mode with defaults: test key, folded store name, São Paulo', () => {
    expect(pixReceiverFor(store(), false)).toEqual({
      pixKey: testPixKey(store().id),
      merchantName: 'Padaria e Confeitaria Sao',
      merchantCity: 'SAO PAULO',
    });
    expect(pixReceiverFor(store({ name: '🛒🛒' }), false).merchantName).toBe('LOJA');
  });

  it('configured name and city are used in both modes; the real key only in live mode', () => {
    const configured = store({
      pix_key: 'loja@example.com',
      merchant_name: 'Padaria SJ',
      merchant_city: 'CAMPINAS',
    });
    expect(pixReceiverFor(configured, false)).toMatchObject({
      pixKey: testPixKey(configured.id),
      merchantName: 'Padaria SJ',
    });
    expect(pixReceiverFor(configured, true)).toEqual({
      pixKey: 'loja@example.com',
      merchantName: 'Padaria SJ',
      merchantCity: 'CAMPINAS',
    });
    expect(() => pixReceiverFor(store(), true)).toThrow(/no Pix key for live charges/);
  });

  it('accepts each kind of Pix key in its registered form and refuses the rest', () => {
    expect(normalizePixKey('52998224725')).toBe('52998224725');
    expect(normalizePixKey('11222333000181')).toBe('11222333000181');
    expect(normalizePixKey(' Ana@Example.com ')).toBe('ana@example.com');
    expect(normalizePixKey('+5511987654321')).toBe('+5511987654321');
    expect(normalizePixKey('123E4567-E89B-42D3-A456-426614174000')).toBe(
      '123e4567-e89b-42d3-a456-426614174000',
    );
    for (const bad of [
      '52998224720',
      '529.982.247-25',
      '11987654321x',
      `${'a'.repeat(70)}@example.com`,
      '',
      'loja',
    ]) {
      expect(() => normalizePixKey(bad), bad).toThrow();
    }
  });

  it('folds name and city, refusing rather than cutting what is too long', () => {
    expect(normalizePixSettings({ merchantName: 'Açaí da Esquina', merchantCity: 'Florianópolis' })).toEqual({
      merchantName: 'Acai da Esquina',
      merchantCity: 'Florianopolis',
    });
    expect(() => normalizePixSettings({ merchantName: 'n'.repeat(26) })).toThrow(/--merchant-name/);
    expect(() => normalizePixSettings({ merchantCity: 'São José dos Campos' })).toThrow(/--merchant-city/);
    expect(() => normalizePixSettings({ merchantName: '🛒' })).toThrow(/--merchant-name/);
    expect(() => normalizePixSettings({ pixKey: 'nope' })).toThrow(/--pix-key/);
  });
});

describeEachDatabase('store Pix settings in charges', (api) => {
  it('updated name and city appear in the next charge; the test key stays', async () => {
    const { key, storeId } = await api.createStore({ name: 'Loja' });
    const updated = await updateStore(api.db, storeId, {
      pixKey: 'loja@example.com',
      merchantName: 'Acai da Esquina',
      merchantCity: 'Florianopolis',
    });
    expect(updated).toMatchObject({
      pix_key: 'loja@example.com',
      merchant_name: 'Acai da Esquina',
      name: 'Loja',
    });
    const charge = (await api.as(key).post('/payments/pix', { amount: 10 })).body;
    expect(parseBrCode(charge.pix.copy_paste)).toMatchObject({
      pixKey: testPixKey(storeId),
      merchantName: 'Acai da Esquina',
      merchantCity: 'Florianopolis',
    });
    expect(await updateStore(api.db, '00000000-0000-4000-8000-000000000000', { name: 'x' })).toBeUndefined();
  });
});
