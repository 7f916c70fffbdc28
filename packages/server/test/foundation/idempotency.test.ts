import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, expectError } from '../support/test-api.js';

describeEachDatabase('Idempotency-Key', (api) => {
  let key: string;
  let storeId: string;
  const countNamed = async (name: string) =>
    (
      await api.db
        .selectFrom('checkouts')
        .select('id')
        .where('store_id', '=', storeId)
        .where('name', '=', name)
        .execute()
    ).length;

  beforeAll(async () => {
    ({ key, storeId } = await api.createStore());
  });

  it('replays the first answer for the same key and body, creating one row', async () => {
    const first = await api.as(key).post('/checkouts', { name: 'Idem A' }, { 'idempotency-key': 'k-a' });
    const second = await api.as(key).post('/checkouts', { name: 'Idem A' }, { 'idempotency-key': 'k-a' });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.text).toBe(first.text);
    expect(await countNamed('Idem A')).toBe(1);
  });

  it('answers 409 for the same key with another body or another path', async () => {
    await api.as(key).post('/checkouts', { name: 'Idem B' }, { 'idempotency-key': 'k-b' });
    expectError(
      await api.as(key).post('/checkouts', { name: 'Idem B2' }, { 'idempotency-key': 'k-b' }),
      409,
      'idempotency_conflict',
    );
    expect(await countNamed('Idem B2')).toBe(0);
  });

  it('keys are per store: another store may use the same key', async () => {
    const other = await api.createStore();
    const res = await api.as(other.key).post('/checkouts', { name: 'Idem A' }, { 'idempotency-key': 'k-a' });
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a failed validation is not remembered: the key can then be used with a valid body', async () => {
    expectError(
      await api.as(key).post('/checkouts', { name: '' }, { 'idempotency-key': 'k-c' }),
      400,
      'invalid_request',
    );
    expect(
      (await api.as(key).post('/checkouts', { name: 'Idem C' }, { 'idempotency-key': 'k-c' })).status,
    ).toBe(201);
  });

  it('keys are 1-255 characters', async () => {
    const long = 'k'.repeat(255);
    expect(
      (await api.as(key).post('/checkouts', { name: 'Idem D' }, { 'idempotency-key': long })).status,
    ).toBe(201);
    expectError(
      await api.as(key).post('/checkouts', { name: 'Idem E' }, { 'idempotency-key': long + 'k' }),
      400,
      'invalid_request',
      'Idempotency-Key',
    );
    expect(await countNamed('Idem E')).toBe(0);
  });

  it('10 concurrent requests with one key create exactly one row; the rest replay or conflict', async () => {
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        api.as(key).post('/checkouts', { name: 'Idem race' }, { 'idempotency-key': 'k-race' }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    expect(responses.filter((r) => r.status === 201 && !r.headers.get('idempotent-replayed'))).toHaveLength(
      1,
    );
    for (const r of responses.filter((x) => x.status === 409)) expectError(r, 409, 'idempotency_conflict');
    expect(await countNamed('Idem race')).toBe(1);
    const events = await api.db
      .selectFrom('events')
      .select('payload')
      .where('store_id', '=', storeId)
      .execute();
    expect(events.filter((e) => JSON.parse(e.payload).data.object.name === 'Idem race')).toHaveLength(1);
  });

  it('without a key, each request creates', async () => {
    await api.as(key).post('/checkouts', { name: 'No key' });
    await api.as(key).post('/checkouts', { name: 'No key' });
    expect(await countNamed('No key')).toBe(2);
  });

  it('keeps a key for 24 hours', async () => {
    await api.as(key).post('/checkouts', { name: 'Idem F' }, { 'idempotency-key': 'k-f' });
    const row = await api.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('key', '=', 'k-f')
      .executeTakeFirstOrThrow();
    expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(24 * 60 * 60 * 1000);
    expect(row.state).toBe('done');
    // Once expired, the key is free again.
    await api.db
      .updateTable('idempotency_keys')
      .set({ expires_at: '2000-01-01T00:00:00.000Z' })
      .where('store_id', '=', storeId)
      .where('key', '=', 'k-f')
      .execute();
    const again = await api.as(key).post('/checkouts', { name: 'Idem F' }, { 'idempotency-key': 'k-f' });
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(await countNamed('Idem F')).toBe(2);
  });

  it('keeps answers sealed at rest, and still replays one kept in clear before sealing existed', async () => {
    const first = await api.as(key).post('/checkouts', { name: 'Idem G' }, { 'idempotency-key': 'k-g' });
    const row = await api.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('key', '=', 'k-g')
      .executeTakeFirstOrThrow();
    expect(row.response_body).toMatch(/^v1\./);
    expect(row.response_body).not.toContain('Idem G');

    await api.db
      .updateTable('idempotency_keys')
      .set({ response_body: first.text })
      .where('store_id', '=', storeId)
      .where('key', '=', 'k-g')
      .execute();
    const replayed = await api.as(key).post('/checkouts', { name: 'Idem G' }, { 'idempotency-key': 'k-g' });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.text).toBe(first.text);
  });
});
