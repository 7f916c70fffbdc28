import { beforeAll, expect, it } from 'vitest';
import { installmentPolicyOf } from '../../src/domain/stores/installment-settings.js';
import { findStore } from '../../src/domain/stores/stores.js';
import { auditRecords } from '../support/audit-records.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';

describeEachDatabase('the store’s card installment terms (GET and PATCH /store card)', (api) => {
  let storeId: string;
  let store: ReturnType<typeof api.as>;

  beforeAll(async () => {
    const created = await api.createStore({ name: 'Loja Parcelas' });
    storeId = created.storeId;
    store = api.as(created.key);
  });

  it('a new store has the defaults: 12x, 1 interest-free, 2.99 % a month, R$ 5.00 minimum', async () => {
    const res = await store.get('/store');
    expect(res.status).toBe(200);
    expect(res.body.card).toEqual({
      max_installments: 12,
      interest_free_installments: 1,
      monthly_interest_rate: 2.99,
      min_installment_amount: 5,
    });
    expect(installmentPolicyOf((await findStore(api.db, storeId))!)).toEqual({
      maxInstallments: 12,
      interestFreeInstallments: 1,
      monthlyInterestRate: 2.99,
      minInstallmentCents: 500,
    });
  });

  it('max_installments 1 and 12 are taken, 0 and 13 are 400 naming the field', async () => {
    const one = await store.patch('/store', { card: { max_installments: 1 } });
    expect(one.status).toBe(200);
    expect(one.body.card.max_installments).toBe(1);
    const twelve = await store.patch('/store', { card: { max_installments: 12 } });
    expect(twelve.body.card.max_installments).toBe(12);
    for (const bad of [0, 13, 2.5])
      expectError(
        await store.patch('/store', { card: { max_installments: bad } }),
        400,
        'invalid_request',
        'card.max_installments',
      );
  });

  it('interest-free installments past the maximum (sent or kept) are 400 with param card.interest_free_installments', async () => {
    await store.patch('/store', { card: { max_installments: 6, interest_free_installments: 1 } });
    expectError(
      await store.patch('/store', { card: { interest_free_installments: 7 } }),
      400,
      'invalid_request',
      'card.interest_free_installments',
    );
    const equal = await store.patch('/store', { card: { interest_free_installments: 6 } });
    expect(equal.status).toBe(200);
    // Lowering the maximum under the interest-free ones kept is refused too; sending both works.
    expectError(
      await store.patch('/store', { card: { max_installments: 3 } }),
      400,
      'invalid_request',
      'card.interest_free_installments',
    );
    const both = await store.patch('/store', {
      card: { max_installments: 3, interest_free_installments: 3 },
    });
    expect(both.body.card).toMatchObject({ max_installments: 3, interest_free_installments: 3 });
    expectError(
      await store.patch('/store', { card: { interest_free_installments: 0 } }),
      400,
      'invalid_request',
      'card.interest_free_installments',
    );
  });

  it('the monthly rate takes 0 and 10 with at most 2 decimals; 10.01, -0.01 and 2.999 are 400', async () => {
    expect(
      (await store.patch('/store', { card: { monthly_interest_rate: 0 } })).body.card.monthly_interest_rate,
    ).toBe(0);
    expect(
      (await store.patch('/store', { card: { monthly_interest_rate: 10 } })).body.card.monthly_interest_rate,
    ).toBe(10);
    const rate = await store.patch('/store', { card: { monthly_interest_rate: 1.99 } });
    expect(rate.body.card.monthly_interest_rate).toBe(1.99);
    const row = await api.db
      .selectFrom('stores')
      .select('card_monthly_interest_bp')
      .where('id', '=', storeId)
      .executeTakeFirstOrThrow();
    expect(row.card_monthly_interest_bp).toBe(199);
    for (const bad of [10.01, -0.01, 2.999, '2.99'])
      expectError(
        await store.patch('/store', { card: { monthly_interest_rate: bad } }),
        400,
        'invalid_request',
        'card.monthly_interest_rate',
      );
  });

  it('the minimum installment is 1.00 to 1,000,000.00 in cents; a partial card object changes only its fields', async () => {
    const before = (await store.get('/store')).body.card;
    const res = await store.patch('/store', { card: { min_installment_amount: 1 } });
    expect(res.body.card).toEqual({ ...before, min_installment_amount: 1 });
    expect(
      (await store.patch('/store', { card: { min_installment_amount: 1_000_000 } })).body.card
        .min_installment_amount,
    ).toBe(1_000_000);
    for (const bad of [0.99, 1_000_000.01, 5.001])
      expectError(
        await store.patch('/store', { card: { min_installment_amount: bad } }),
        400,
        'invalid_request',
        'card.min_installment_amount',
      );
    expectError(await store.patch('/store', { card: { surprise: 1 } }), 400, 'invalid_request');
    const named = await store.patch('/store', { name: 'Loja Parcelas 2' });
    expect(named.body.card).toEqual((await store.get('/store')).body.card);
  });

  it('a change of terms is audited in words; a refused one writes nothing', async () => {
    await store.patch('/store', {
      card: {
        max_installments: 10,
        interest_free_installments: 2,
        monthly_interest_rate: 2.5,
        min_installment_amount: 7.5,
      },
    });
    const entries = (await auditRecords(api, storeId)).filter((row) => row.action === 'store_updated');
    expect(entries.at(-1)!.detail).toMatch(
      /^parcelamento: .* → até 10x, 2x sem juros, 2,50% ao mês, parcela mínima R\$ 7,50$/,
    );
    const count = entries.length;
    await store.patch('/store', { card: { max_installments: 1 } });
    expect((await auditRecords(api, storeId)).filter((row) => row.action === 'store_updated')).toHaveLength(
      count,
    );
    expect((await store.get('/store')).body.card.max_installments).toBe(10);
  });
});
