import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  cardAcceptance,
  saveCardProviderSettings,
} from '../../src/domain/payments/card-settings/card-provider-settings.js';
import { createSecretBox } from '../../src/platform/values/secret-box.js';
import { startFakeMercadoPago } from '../support/fake-mercadopago.js';
import type { FakeMercadoPago } from '../support/fake-mercadopago.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';

const INSTALLMENTS = '/payments/card/installments?amount=100&bin=503143';

describeEachDatabase(
  'the registry’s card provider per store and mode',
  (api) => {
    let live: FakeMercadoPago;
    let test: FakeMercadoPago;

    beforeAll(async () => {
      live = await startFakeMercadoPago();
      test = await startFakeMercadoPago({
        accessToken: 'TEST-1111111111111111-112820-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-111111111',
        publicKey: 'TEST-aaaaaaaa-1111-2222-3333-444444444444',
      });
    });
    afterAll(() => Promise.all([live.close(), test.close()]));

    const setMercadoPago = (storeId: string, livemode: boolean, psp: FakeMercadoPago) =>
      saveCardProviderSettings(api.db, createSecretBox(api.config.secret), {
        storeId,
        livemode,
        provider: 'mercadopago',
        secret: psp.accessToken,
        publicKey: psp.publicKey,
        webhookSecret: psp.webhookSecret,
        baseUrl: psp.baseUrl,
        caPem: psp.caPem,
      });

    it('without a card PSP: test keys get the simulated provider, live keys 400 provider_not_configured', async () => {
      const { storeId, key } = await api.createStore({ name: 'Loja Sem PSP' });
      const liveKey = await api.createKey(storeId, undefined, 'live');
      expect((await api.payments.card({ storeId, livemode: false })).name).toBe('simulated');
      await expect(api.payments.card({ storeId, livemode: true })).rejects.toMatchObject({
        statusCode: 400,
        code: 'provider_not_configured',
      });
      expect(await cardAcceptance(api.db, storeId, false)).toEqual({
        provider: 'simulated',
        publicKey: null,
      });
      expect(await cardAcceptance(api.db, storeId, true)).toBeNull();

      const simulated = await api.as(key).get(INSTALLMENTS);
      expect(simulated.status).toBe(200);
      expect(simulated.body.options).toHaveLength(12);
      const refused = expectError(await api.as(liveKey).get(INSTALLMENTS), 400, 'provider_not_configured');
      expect(refused.message).toMatch(/no live card provider .*storefront card-provider set/);
    });

    it('with a PSP per mode: each mode’s keys are served by that mode’s PSP, kept until its settings change', async () => {
      const { storeId, key } = await api.createStore({ name: 'Loja Com PSP' });
      const liveKey = await api.createKey(storeId, undefined, 'live');
      await setMercadoPago(storeId, true, live);
      const provider = await api.payments.card({ storeId, livemode: true });
      expect(provider).toMatchObject({ name: 'mercadopago', publicKey: live.publicKey });
      expect(await api.payments.card({ storeId, livemode: true })).toBe(provider);
      expect(await cardAcceptance(api.db, storeId, true)).toEqual({
        provider: 'mercadopago',
        publicKey: live.publicKey,
      });

      const answered = await api.as(liveKey).get(INSTALLMENTS);
      expect(answered.status, answered.text).toBe(200);
      // The fake's own terms (interest-free up to 3), not the store's table (1).
      expect(answered.body.options[2]).toMatchObject({ installments: 3, interest_free: true });
      expect(live.requests.at(-1)).toMatchObject({ authorization: `Bearer ${live.accessToken}` });
      // The test keys stay simulated until a test PSP is set.
      expect((await api.payments.card({ storeId, livemode: false })).name).toBe('simulated');
      expect((await api.as(key).get(INSTALLMENTS)).body.options[2].interest_free).toBe(false);

      await setMercadoPago(storeId, false, test);
      expect(await api.payments.card({ storeId, livemode: false })).toMatchObject({
        name: 'mercadopago',
        publicKey: test.publicKey,
      });
      expect((await api.as(key).get(INSTALLMENTS)).status).toBe(200);
      expect(test.requests.at(-1)).toMatchObject({ authorization: `Bearer ${test.accessToken}` });

      // New settings build a new provider.
      await new Promise((resolve) => setTimeout(resolve, 5));
      await setMercadoPago(storeId, true, live);
      expect(await api.payments.card({ storeId, livemode: true })).not.toBe(provider);
    });
  },
  { config: { pspAllowedHosts: new Set(['127.0.0.1']) } },
);
