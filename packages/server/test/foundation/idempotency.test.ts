import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
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

  describe('keys belong to a mode: a replay never crosses test and live', () => {
    let liveKey: string;
    beforeAll(async () => {
      liveKey = await api.createKey(storeId, undefined, 'live');
    });

    it('a live key does not get the test charge kept under the same key', async () => {
      const body = { amount: 4.56 };
      const test = await api.as(key).post('/payments/pix', body, { 'idempotency-key': 'k-mode-pix' });
      expect([test.status, test.body.livemode]).toEqual([201, false]);
      // The store has no PSP configured: the live request runs, and says so, instead of replaying.
      const live = await api.as(liveKey).post('/payments/pix', body, { 'idempotency-key': 'k-mode-pix' });
      expectError(live, 400, 'provider_not_configured');
      expect(live.headers.get('idempotent-replayed')).toBeNull();
      // Same mode still replays.
      const again = await api.as(key).post('/payments/pix', body, { 'idempotency-key': 'k-mode-pix' });
      expect([again.status, again.text, again.headers.get('idempotent-replayed')]).toEqual([
        201,
        test.text,
        'true',
      ]);
    });

    it("a test key that knows a live request's key and body gets its own answer, never the live secret", async () => {
      const body = { url: 'https://hooks.example.com/mode', events: ['pix.paid'] };
      const live = await api.as(liveKey).post('/webhooks', body, { 'idempotency-key': 'k-mode-wh' });
      expect(live.status).toBe(201);
      const test = await api.as(key).post('/webhooks', body, { 'idempotency-key': 'k-mode-wh' });
      expect(test.status).toBe(201);
      expect(test.headers.get('idempotent-replayed')).toBeNull();
      expect(test.body.id).not.toBe(live.body.id);
      expect(test.body.secret).not.toBe(live.body.secret);
      const endpoints = await api.db
        .selectFrom('webhook_endpoints')
        .select(['id', 'livemode'])
        .where('id', 'in', [live.body.id, test.body.id])
        .execute();
      expect(Object.fromEntries(endpoints.map((e) => [e.id, Boolean(e.livemode)]))).toEqual({
        [live.body.id]: true,
        [test.body.id]: false,
      });
      const rows = await api.db
        .selectFrom('idempotency_keys')
        .select('mode')
        .where('store_id', '=', storeId)
        .where('key', '=', 'k-mode-wh')
        .orderBy('mode')
        .execute();
      expect(rows.map((r) => r.mode)).toEqual(['live', 'test']);
      // Each mode replays its own answer.
      for (const [apiKey, first] of [
        [liveKey, live],
        [key, test],
      ] as const) {
        const again = await api.as(apiKey).post('/webhooks', body, { 'idempotency-key': 'k-mode-wh' });
        expect([again.status, again.text, again.headers.get('idempotent-replayed')]).toEqual([
          201,
          first.text,
          'true',
        ]);
      }
    });

    it('a sealed answer moved to the other mode does not open there', async () => {
      const body = { name: 'Idem sealed mode' };
      await api.as(key).post('/checkouts', body, { 'idempotency-key': 'k-mode-seal' });
      await api.db
        .updateTable('idempotency_keys')
        .set({ mode: 'live' })
        .where('store_id', '=', storeId)
        .where('key', '=', 'k-mode-seal')
        .execute();
      const live = await api.as(liveKey).post('/checkouts', body, { 'idempotency-key': 'k-mode-seal' });
      expect(live.status).toBe(500);
      expect(live.text).not.toContain('Idem sealed mode');
    });

    it('a key kept before keys had a mode is refused in both modes, neither replayed nor run again', async () => {
      const body = { name: 'Idem legacy' };
      await api.as(key).post('/checkouts', body, { 'idempotency-key': 'k-mode-legacy' });
      await api.db
        .updateTable('idempotency_keys')
        .set({ mode: 'unknown' })
        .where('store_id', '=', storeId)
        .where('key', '=', 'k-mode-legacy')
        .execute();
      for (const apiKey of [key, liveKey]) {
        const res = await api.as(apiKey).post('/checkouts', body, { 'idempotency-key': 'k-mode-legacy' });
        expectError(res, 409, 'idempotency_conflict', 'Idempotency-Key');
        expect(res.body.error.message).toMatch(/per mode/);
      }
      expect(await countNamed('Idem legacy')).toBe(1);
    });
  });

  const keyRow = (key: string) =>
    api.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('key', '=', key)
      .executeTakeFirstOrThrow();

  it('a creation stores its answer with the change: the text sent is the text kept', async () => {
    const product = await api
      .as(key)
      .post('/products', { nome: 'Idem produto', preco: 10 }, { 'idempotency-key': 'k-p' });
    const charge = await api.as(key).post('/payments/pix', { amount: 3 }, { 'idempotency-key': 'k-pix' });
    for (const [k, res] of [
      ['k-p', product],
      ['k-pix', charge],
    ] as const) {
      expect(res.status).toBe(201);
      const row = await keyRow(k);
      expect([row.state, row.response_status]).toEqual(['done', 201]);
      expect(row.response_body).toMatch(/^v1\./); // sealed; the replay below opens it
    }
    const again = await api.as(key).post('/payments/pix', { amount: 3 }, { 'idempotency-key': 'k-pix' });
    expect([again.status, again.text, again.headers.get('idempotent-replayed')]).toEqual([
      201,
      charge.text,
      'true',
    ]);
  });

  it('a 4xx answer of a creation is kept too, and replayed', async () => {
    const body = { nome: 'Idem slug', preco: 10, slug: 'idem-slug' };
    await api.as(key).post('/products', body);
    const first = await api.as(key).post('/products', body, { 'idempotency-key': 'k-400' });
    expectError(first, 400, 'invalid_request', 'slug');
    const second = await api.as(key).post('/products', body, { 'idempotency-key': 'k-400' });
    expect([second.status, second.text, second.headers.get('idempotent-replayed')]).toEqual([
      400,
      first.text,
      'true',
    ]);
  });

  /**
   * Plays another process: `hold` writes in a transaction of its own connection, `request` starts,
   * and once the request's transaction waits on that one, it commits. Only PostgreSQL lets a second
   * connection hold a write uncommitted while this process runs (a second SQLite connection in one
   * process would block its event loop on the write lock).
   */
  async function commitWhileWaiting<T>(
    hold: (other: pg.Client) => Promise<unknown>,
    request: () => Promise<T>,
  ): Promise<T> {
    const other = new pg.Client({ connectionString: api.database.url });
    await other.connect();
    try {
      await other.query(`set search_path to ${api.database.env.PGOPTIONS!.split('=')[1]}`);
      await other.query('begin');
      await hold(other);
      const otherPid = (await other.query('select pg_backend_pid() as pid')).rows[0].pid;
      const pending = request();
      const admin = new pg.Client({ connectionString: api.database.url });
      await admin.connect();
      try {
        for (;;) {
          const { rows } = await admin.query(
            'select count(*)::int as n from pg_stat_activity where $1 = any(pg_blocking_pids(pid))',
            [otherPid],
          );
          if (rows[0].n > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      } finally {
        await admin.end();
      }
      await other.query('commit');
      return await pending;
    } finally {
      await other.end();
    }
  }

  const insertKey = (other: pg.Client, k: string, fingerprint: string, body: string) => {
    const now = new Date();
    return other.query(
      `insert into idempotency_keys (store_id, mode, key, fingerprint, state, response_status, response_body,
         created_at, expires_at) values ($1, 'test', $2, $3, 'done', 201, $4, $5, $6)`,
      [storeId, k, fingerprint, body, now.toISOString(), new Date(now.getTime() + 86_400_000).toISOString()],
    );
  };
  const productsNamed = async (nome: string) =>
    (
      await api.db
        .selectFrom('products')
        .select('id')
        .where('store_id', '=', storeId)
        .where('nome', '=', nome)
        .execute()
    ).length;

  it.skipIf(api.dialect !== 'postgres')(
    'a creation that meets the key committed by another process meanwhile is rolled back',
    async () => {
      const answer = await commitWhileWaiting(
        (other) => insertKey(other, 'k-race-2', 'another body', '{}'),
        () =>
          api
            .as(key)
            .post('/products', { nome: 'Idem rolled back', preco: 1 }, { 'idempotency-key': 'k-race-2' }),
      );
      expectError(answer, 409, 'idempotency_conflict', 'Idempotency-Key');
      expect(await productsNamed('Idem rolled back')).toBe(0);
    },
  );

  it.skipIf(api.dialect !== 'postgres')(
    'a duplicate from another process waits for the first to commit, then replays its answer',
    async () => {
      const body = { amount: 3.21 };
      const charges = async () =>
        (
          await api.db
            .selectFrom('pix_charges')
            .select('id')
            .where('store_id', '=', storeId)
            .where('amount_cents', '=', 321)
            .execute()
        ).length;
      // The same request under another key: its row holds this body's fingerprint, its answer is a charge.
      const probe = await api.as(key).post('/payments/pix', body, { 'idempotency-key': 'k-race-pix-probe' });
      const { fingerprint } = await keyRow('k-race-pix-probe');
      const before = await charges();
      const answer = await commitWhileWaiting(
        (other) => insertKey(other, 'k-race-pix', fingerprint, probe.text),
        () => api.as(key).post('/payments/pix', body, { 'idempotency-key': 'k-race-pix' }),
      );
      expect([answer.status, answer.text, answer.headers.get('idempotent-replayed')]).toEqual([
        201,
        probe.text,
        'true',
      ]);
      expect(await charges()).toBe(before);
    },
  );

  it.skipIf(api.dialect !== 'postgres')(
    "a creation whose change collides with one committed meanwhile under its key answers from that key's row",
    async () => {
      const template = await api.as(key).post('/products', { nome: 'Idem template', preco: 1 });
      const answer = await commitWhileWaiting(
        async (other) => {
          // The other process's product takes the slug this request asks for.
          await other.query(
            'create temp table copied on commit drop as select * from products where id = $1',
            [template.body.id],
          );
          await other.query(
            `update copied set id = $1, slug = 'idem-race-slug', codigo = 'PRD-RACESLUG', nome = 'Idem race winner'`,
            [randomUUID()],
          );
          await other.query('insert into products select * from copied');
          await insertKey(other, 'k-race-slug', 'another body', '{}');
        },
        () =>
          api
            .as(key)
            .post(
              '/products',
              { nome: 'Idem race loser', preco: 1, slug: 'idem-race-slug' },
              { 'idempotency-key': 'k-race-slug' },
            ),
      );
      // Not the 400 of a slug taken: the key's first request decides the answer.
      expectError(answer, 409, 'idempotency_conflict', 'Idempotency-Key');
      expect(await productsNamed('Idem race loser')).toBe(0);
    },
  );
});
