import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/platform/api-keys/api-keys.js';
import { buildApp } from '../../src/channels/server/app.js';
import { loadConfig } from '../../src/platform/config/config.js';
import { createStore } from '../../src/flows/create-store.js';
import { createTestDatabase } from '../support/test-databases.js';
import type { TestDatabase } from '../support/test-databases.js';
import { logLinesStream } from '../support/log-lines.js';
import { TEST_SECRET } from '../support/test-api.js';

/** An expected refusal is not an incident: it is logged at info, once, without a stack. */
describe('provider_not_configured in the service log (SQLite)', () => {
  const lines: Record<string, unknown>[] = [];
  let database: TestDatabase;
  let app: Awaited<ReturnType<typeof buildApp>>;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    app = await buildApp({
      config: loadConfig({ DATABASE_URL: database.url, STOREFRONT_SECRET: TEST_SECRET }),
      db: database.db.kysely,
      logger: { level: 'info', stream: logLinesStream(lines) },
    });
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
  });

  it('a live create without a provider answers 400 and logs one info line with the code and no stack', async () => {
    const store = await createStore(database.db.kysely, { name: 'Sem PSP' });
    const { key } = await createApiKey(database.db.kysely, {
      storeId: store.id,
      mode: 'live',
      scopes: ['pix:write'],
    });
    const res = await app.inject({
      method: 'POST',
      url: '/api/public/v1/payments/pix',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: { amount: 10 },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('provider_not_configured');
    const refusals = lines.filter((line) => line.code === 'provider_not_configured');
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ level: 30, msg: 'request refused' });
    expect(JSON.stringify(lines)).not.toMatch(/"stack"|"err"/);
    expect(lines.some((line) => (line.level as number) >= 50)).toBe(false);
  });
});
