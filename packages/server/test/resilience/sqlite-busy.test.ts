import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestApi, expectError } from '../support/test-api.js';

/**
 * SQLite's lock held past the busy timeout (another process writing for longer than 5 s, a backup
 * tool holding the file) is the embedded database being unavailable for now: a 503 the client
 * retries, not a 500, and nothing half-written.
 */
describe('SQLite locked by another process past the busy timeout', () => {
  const api = new TestApi('sqlite');
  beforeAll(() => api.start());
  afterAll(() => api.stop());

  it('answers 503 service_unavailable with Retry-After, then works once the lock is gone', async () => {
    const { key } = await api.createStore();
    expect((await api.as(key).get('/products')).status).toBe(200);
    const other = new SqliteDatabase(api.database.url.slice('sqlite:'.length));
    other.exec('begin immediate');
    try {
      const refused = await api.as(key).post('/products', { nome: 'Trancado', preco: 10 });
      expectError(refused, 503, 'service_unavailable', null);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      other.exec('rollback');
      other.close();
    }
    const rows = await api.db.selectFrom('products').select('id').where('nome', '=', 'Trancado').execute();
    expect(rows).toHaveLength(0);
    expect((await api.as(key).post('/products', { nome: 'Destrancado', preco: 10 })).status).toBe(201);
  });
});
