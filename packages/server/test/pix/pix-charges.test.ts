import { beforeAll, describe, expect, it } from 'vitest';
import { parseBrCode } from '../../src/platform/brcode/index.js';
import { testPixKey } from '../../src/domain/pix/pix-settings.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import { countRows, decodeQr, eventsFor, insertLiveCharge } from './pix-test-helpers.js';

const CHARGE_KEYS = [
  'amount',
  'canceled_at',
  'created_at',
  'customer',
  'description',
  'expires_at',
  'external_id',
  'id',
  'livemode',
  'metadata',
  'object',
  'paid_at',
  'pix',
  'product_id',
  'status',
  'tracking',
].sort();

describeEachDatabase('pix charges', (api) => {
  let key: string;
  let storeId: string;
  const create = (body: unknown, headers?: Record<string, string>) =>
    api.as(key).post('/payments/pix', body, headers);

  beforeAll(async () => {
    ({ key, storeId } = await api.createStore({ name: 'Padaria São João Batista & Filhos' }));
  });

  describe('create', () => {
    it('creates a pending charge from an amount alone, with a real BR Code and QR, and records pix.created', async () => {
      const res = await create({ amount: 22 });
      expect(res.status).toBe(201);
      const charge = res.body;
      expect(Object.keys(charge).sort()).toEqual(CHARGE_KEYS);
      expect(charge).toMatchObject({
        object: 'pix_charge',
        status: 'pending',
        amount: 22,
        description: null,
        external_id: null,
        customer: null,
        metadata: null,
        paid_at: null,
        livemode: false,
      });
      expect(charge.id).toMatch(/^pix_[0-9A-Za-z]{24}$/);
      expect(Date.parse(charge.expires_at) - Date.parse(charge.created_at)).toBe(3600 * 1000);
      expect(charge.pix.txid).toMatch(/^[A-Za-z0-9]{1,25}$/);

      const code = parseBrCode(charge.pix.copy_paste); // throws on a bad CRC or structure
      expect(code).toMatchObject({
        pixKey: testPixKey(storeId),
        amount: 22,
        txid: charge.pix.txid,
        merchantName: 'Padaria Sao Joao Batista',
        merchantCity: 'SAO PAULO',
      });
      expect(charge.pix.copy_paste).toContain('540522.00');
      expect(charge.pix.qr_code_base64).not.toMatch(/^data:/);
      expect(decodeQr(charge.pix.qr_code_base64)).toBe(charge.pix.copy_paste);

      const events = await eventsFor(api, storeId, charge.id);
      expect(events.map((e) => e.payload.type)).toEqual(['pix.created']);
      expect(events[0]!.payload).toMatchObject({
        object: 'event',
        livemode: false,
        data: { object: charge },
      });
    });

    it('keeps every optional field; the document is answered bare', async () => {
      const res = await create({
        amount: 1234.56,
        description: 'Pão de queijo (12 un.)',
        external_id: 'order-1001',
        expires_in: 600,
        customer: { email: 'ana@example.com.br', whatsapp: '+5511987654321', document: '529.982.247-25' },
        metadata: { order: '1001', channel: 'whatsapp' },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        amount: 1234.56,
        description: 'Pão de queijo (12 un.)',
        external_id: 'order-1001',
        customer: { email: 'ana@example.com.br', whatsapp: '+5511987654321', document: '52998224725' },
        metadata: { order: '1001', channel: 'whatsapp' },
      });
      expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(600 * 1000);
      expect(parseBrCode(res.body.pix.copy_paste).amount).toBe(1234.56);
      expect(decodeQr(res.body.pix.qr_code_base64)).toBe(res.body.pix.copy_paste);
    });

    it('accepts a CNPJ, masked or bare, and an alphanumeric CNPJ', async () => {
      for (const document of ['11.222.333/0001-81', '11222333000181', '12ABC34501DE35']) {
        const res = await create({ amount: 1, customer: { document } });
        expect(res.status, res.text).toBe(201);
      }
    });

    it('accepts the amount bounds 0.01 and 1,000,000 and encodes them exactly', async () => {
      for (const [amount, text] of [
        [0.01, '0.01'],
        [1_000_000, '1000000.00'],
        [0.29, '0.29'],
      ] as const) {
        const res = await create({ amount });
        expect(res.status).toBe(201);
        expect(res.body.amount).toBe(amount);
        expect(res.body.pix.copy_paste).toContain(`54${String(text.length).padStart(2, '0')}${text}`);
        expect(parseBrCode(res.body.pix.copy_paste).amount).toBe(amount);
      }
    });

    it('accepts expires_in 60 and 604800', async () => {
      for (const expires_in of [60, 604_800]) {
        const res = await create({ amount: 5, expires_in });
        expect(res.status).toBe(201);
        expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(expires_in * 1000);
      }
    });

    it('accepts metadata at its bounds: 20 keys, 40-character keys, 500-character values', async () => {
      const metadata = Object.fromEntries(
        Array.from({ length: 20 }, (_, i) => [
          `${String(i).padStart(2, '0')}${'k'.repeat(38)}`,
          'v'.repeat(500),
        ]),
      );
      const res = await create({ amount: 5, metadata });
      expect(res.status).toBe(201);
      expect(res.body.metadata).toEqual(metadata);
    });

    it('accepts description and external_id at their bounds', async () => {
      const res = await create({ amount: 5, description: 'd'.repeat(140), external_id: 'e'.repeat(100) });
      expect(res.status).toBe(201);
    });
  });

  describe('every invalid request is 400 naming the param, and writes nothing', () => {
    const cases: Array<[string, unknown, string | null]> = [
      ['amount 0', { amount: 0 }, 'amount'],
      ['amount 1000000.01', { amount: 1_000_000.01 }, 'amount'],
      ['amount 1.001', { amount: 1.001 }, 'amount'],
      ['amount 19.99000000001 (float-close to cents)', { amount: 19.99000000001 }, 'amount'],
      ['amount 1.0000000001', { amount: 1.0000000001 }, 'amount'],
      ['amount "10"', { amount: '10' }, 'amount'],
      ['amount negative', { amount: -5 }, 'amount'],
      ['amount missing', { description: 'x' }, 'amount'],
      ['expires_in 59', { amount: 1, expires_in: 59 }, 'expires_in'],
      ['expires_in 604801', { amount: 1, expires_in: 604_801 }, 'expires_in'],
      ['expires_in 90.5', { amount: 1, expires_in: 90.5 }, 'expires_in'],
      ['bad CPF', { amount: 1, customer: { document: '123.456.789-00' } }, 'customer.document'],
      ['bad CNPJ', { amount: 1, customer: { document: '11.222.333/0001-80' } }, 'customer.document'],
      ['repeated-digit CPF', { amount: 1, customer: { document: '11111111111' } }, 'customer.document'],
      ['document of 10 digits', { amount: 1, customer: { document: '1234567890' } }, 'customer.document'],
      ['bad email', { amount: 1, customer: { email: 'not-an-email' } }, 'customer.email'],
      ['bad whatsapp', { amount: 1, customer: { whatsapp: '(11) 98765-4321' } }, 'customer.whatsapp'],
      ['unknown customer key', { amount: 1, customer: { nome: 'Ana' } }, 'customer.nome'],
      ['customer.name empty', { amount: 1, customer: { name: '' } }, 'customer.name'],
      ['customer.name 201', { amount: 1, customer: { name: 'a'.repeat(201) } }, 'customer.name'],
      ['customer not an object', { amount: 1, customer: 'ana' }, 'customer'],
      ['unknown field', { amount: 1, currency: 'BRL' }, 'currency'],
      ['description 141', { amount: 1, description: 'd'.repeat(141) }, 'description'],
      ['description empty', { amount: 1, description: '' }, 'description'],
      ['external_id 101', { amount: 1, external_id: 'e'.repeat(101) }, 'external_id'],
      ['external_id with a slash', { amount: 1, external_id: 'a/b' }, 'external_id'],
      ['external_id not a string', { amount: 1, external_id: 7 }, 'external_id'],
      [
        'metadata with 21 keys',
        { amount: 1, metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) },
        'metadata',
      ],
      ['metadata key of 41', { amount: 1, metadata: { ['k'.repeat(41)]: 'v' } }, 'metadata'],
      ['metadata empty key', { amount: 1, metadata: { '': 'v' } }, 'metadata'],
      ['metadata value of 501', { amount: 1, metadata: { k: 'v'.repeat(501) } }, 'metadata.k'],
      ['metadata number value', { amount: 1, metadata: { k: 1 } }, 'metadata.k'],
      ['metadata not an object', { amount: 1, metadata: ['a'] }, 'metadata'],
      ['body not an object', [1], null],
    ];
    for (const [name, body, param] of cases) {
      it(name, async () => {
        const before = await countRows(api, storeId);
        expectError(await create(body), 400, 'invalid_request', param);
        expect(await countRows(api, storeId)).toEqual(before);
      });
    }
  });

  describe('retrieve and list', () => {
    it('retrieves by id and by external id', async () => {
      const created = (await create({ amount: 7.5, external_id: 'lookup-1' })).body;
      const byId = await api.as(key).get(`/payments/pix/${created.id}`);
      expect(byId.status).toBe(200);
      expect(byId.body).toEqual(created);
      const byExternal = await api.as(key).get('/payments/pix/external/lookup-1');
      expect(byExternal.status).toBe(200);
      expect(byExternal.body).toEqual(created);
    });

    it('a malformed or unknown id or external id is 404', async () => {
      for (const path of [
        '/payments/pix/nope',
        '/payments/pix/pix_000000000000000000000000',
        '/payments/pix/external/never-used',
        '/payments/pix/external/has%20space',
      ]) {
        expectError(await api.as(key).get(path), 404, 'not_found');
      }
    });

    it('lists newest first, walks pages with the cursor, and filters by status', async () => {
      const { key: listKey, storeId: listStore } = await api.createStore();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push((await api.as(listKey).post('/payments/pix', { amount: i + 1 })).body.id);
      await api.as(listKey).post(`/payments/pix/${ids[1]}/simulate_payment`);

      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: { data: Array<{ id: string }>; next_cursor: string | null; has_more: boolean } } =
          await api.as(listKey).get(`/payments/pix?limit=2${cursor ? `&starting_after=${cursor}` : ''}`);
        seen.push(...page.body.data.map((c) => c.id));
        cursor = page.body.next_cursor;
        expect(page.body.has_more).toBe(cursor !== null);
      } while (cursor);
      expect(new Set(seen)).toEqual(new Set(ids));
      expect(seen).toEqual(await api.newestFirst('pix_charges', listStore));

      const paid = await api.as(listKey).get('/payments/pix?status=paid');
      expect(paid.body.data.map((c: { id: string }) => c.id)).toEqual([ids[1]]);
      const pending = await api.as(listKey).get('/payments/pix?status=pending');
      expect(pending.body.data).toHaveLength(4);
      expect((await api.as(listKey).get('/payments/pix?status=expired')).body.data).toEqual([]);
    });

    it('rejects a bad status, limit or unknown query parameter', async () => {
      expectError(await api.as(key).get('/payments/pix?status=refunded'), 400, 'invalid_request', 'status');
      expectError(await api.as(key).get('/payments/pix?limit=0'), 400, 'invalid_request', 'limit');
      expectError(await api.as(key).get('/payments/pix?amount=1'), 400, 'invalid_request', 'amount');
      expectError(
        await api.as(key).get('/payments/pix?starting_after=abc'),
        400,
        'invalid_request',
        'starting_after',
      );
    });
  });

  describe('external_id reuse', () => {
    it('answers 200 with the existing charge and creates nothing', async () => {
      const first = await create({ amount: 10, external_id: 'reuse-1' });
      expect(first.status).toBe(201);
      const before = await countRows(api, storeId);
      const again = await create({ amount: 99, external_id: 'reuse-1', description: 'different' });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(await countRows(api, storeId)).toEqual(before);
    });

    it('10 concurrent creates with one external_id make exactly one charge and one event', async () => {
      const results = await Promise.all(
        Array.from({ length: 10 }, () => create({ amount: 10, external_id: 'race-1' })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
      const ids = new Set(results.map((r) => r.body.id));
      expect(ids.size).toBe(1);
      const rows = await api.db
        .selectFrom('pix_charges')
        .select('id')
        .where('store_id', '=', storeId)
        .where('external_id', '=', 'race-1')
        .execute();
      expect(rows).toHaveLength(1);
      expect(await eventsFor(api, storeId, rows[0]!.id, 'pix.created')).toHaveLength(1);
    });

    it('the same external_id in another store is another charge', async () => {
      const other = await api.createStore();
      const mine = await create({ amount: 10, external_id: 'shared-id' });
      const theirs = await api.as(other.key).post('/payments/pix', { amount: 10, external_id: 'shared-id' });
      expect(theirs.status).toBe(201);
      expect(theirs.body.id).not.toBe(mine.body.id);
    });
  });

  it('replays a creation with the same Idempotency-Key', async () => {
    const headers = { 'Idempotency-Key': 'pix-idem-1' };
    const first = await create({ amount: 3 }, headers);
    const before = await countRows(api, storeId);
    const replay = await create({ amount: 3 }, headers);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await countRows(api, storeId)).toEqual(before);
    expectError(await create({ amount: 4 }, headers), 409, 'idempotency_conflict');
  });

  describe('scopes', () => {
    it('pix:write to create and simulate, pix:read to read', async () => {
      const charge = (await create({ amount: 1 })).body;
      const reader = await api.createKey(storeId, ['pix:read']);
      const writer = await api.createKey(storeId, ['pix:write']);
      expectError(await api.as(reader).post('/payments/pix', { amount: 1 }), 403, 'insufficient_scope');
      expectError(
        await api.as(reader).post(`/payments/pix/${charge.id}/simulate_payment`),
        403,
        'insufficient_scope',
      );
      expectError(await api.as(writer).get(`/payments/pix/${charge.id}`), 403, 'insufficient_scope');
      expectError(await api.as(writer).get('/payments/pix'), 403, 'insufficient_scope');
      expectError(await api.as(writer).get('/payments/pix/external/x'), 403, 'insufficient_scope');
      expect((await api.as(reader).get(`/payments/pix/${charge.id}`)).status).toBe(200);
    });
  });

  describe('live keys and mode separation', () => {
    let liveKey: string;
    beforeAll(async () => {
      liveKey = await api.createKey(storeId, undefined, 'live');
    });

    it('a live create without a configured provider is 400 provider_not_configured and writes nothing; validation still comes first', async () => {
      const before = await countRows(api, storeId);
      const error = expectError(
        await api.as(liveKey).post('/payments/pix', { amount: 10, external_id: 'live-1' }),
        400,
        'provider_not_configured',
        null,
      );
      expect(error.message).toMatch(/no live Pix provider configured/i);
      expect(await countRows(api, storeId)).toEqual(before);
      expectError(
        await api.as(liveKey).post('/payments/pix', { amount: 0 }),
        400,
        'invalid_request',
        'amount',
      );
    });

    it('simulate_payment is 400 for a live key', async () => {
      const liveId = await insertLiveCharge(api, storeId, 'live-sim');
      expectError(
        await api.as(liveKey).post(`/payments/pix/${liveId}/simulate_payment`),
        400,
        'invalid_request',
      );
      expect((await api.as(liveKey).get(`/payments/pix/${liveId}`)).body.status).toBe('pending');
    });

    it('a test key never sees live charges, and a live key never sees test ones', async () => {
      const testCharge = (await create({ amount: 2, external_id: 'mode-x' })).body;
      const liveId = await insertLiveCharge(api, storeId, 'mode-x');

      expectError(await api.as(key).get(`/payments/pix/${liveId}`), 404, 'not_found');
      expectError(await api.as(key).post(`/payments/pix/${liveId}/simulate_payment`), 404, 'not_found');
      expect((await api.as(key).get('/payments/pix/external/mode-x')).body.id).toBe(testCharge.id);
      const testList = await api.as(key).get('/payments/pix?limit=100');
      expect(testList.body.data.map((c: { id: string }) => c.id)).not.toContain(liveId);
      expect(testList.body.data.every((c: { livemode: boolean }) => c.livemode === false)).toBe(true);

      expectError(await api.as(liveKey).get(`/payments/pix/${testCharge.id}`), 404, 'not_found');
      const live = await api.as(liveKey).get('/payments/pix/external/mode-x');
      expect(live.body).toMatchObject({ id: liveId, livemode: true });
      const liveList = await api.as(liveKey).get('/payments/pix?limit=100');
      expect(liveList.body.data.map((c: { id: string }) => c.id)).not.toContain(testCharge.id);
    });

    it('a cursor of the test listing is refused by the live listing', async () => {
      await create({ amount: 1 });
      await create({ amount: 1 });
      const page = await api.as(key).get('/payments/pix?limit=1');
      expect(page.body.next_cursor).toBeTruthy();
      expectError(
        await api.as(liveKey).get(`/payments/pix?starting_after=${page.body.next_cursor}`),
        400,
        'invalid_request',
        'starting_after',
      );
    });
  });

  it('documents every Pix and sales operation in the OpenAPI document', async () => {
    const doc = (await api.request('GET', '/openapi.json')).body;
    const operations = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>)
      .flatMap((path) => Object.values(path))
      .map((op) => op.operationId);
    expect(operations).toEqual(
      expect.arrayContaining([
        'createPixCharge',
        'listPixCharges',
        'getPixCharge',
        'getPixChargeByExternalId',
        'simulatePixPayment',
        'listSales',
        'getSale',
        'refundSale',
      ]),
    );
    const create = doc.paths['/payments/pix'].post;
    expect(Object.keys(create.responses)).toEqual(
      expect.arrayContaining(['200', '201', '400', '502', '503']),
    );
  });

  describe('store isolation', () => {
    it("another store's charge is 404 everywhere and absent from lists", async () => {
      const other = await api.createStore();
      const theirs = (await api.as(other.key).post('/payments/pix', { amount: 9, external_id: 'theirs-1' }))
        .body;
      expectError(await api.as(key).get(`/payments/pix/${theirs.id}`), 404, 'not_found');
      expectError(await api.as(key).get('/payments/pix/external/theirs-1'), 404, 'not_found');
      expectError(await api.as(key).post(`/payments/pix/${theirs.id}/simulate_payment`), 404, 'not_found');
      const list = await api.as(key).get('/payments/pix?limit=100');
      expect(list.body.data.map((c: { id: string }) => c.id)).not.toContain(theirs.id);
      expect((await api.as(other.key).get(`/payments/pix/${theirs.id}`)).body.status).toBe('pending');
    });
  });
});
