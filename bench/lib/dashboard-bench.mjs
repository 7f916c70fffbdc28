// What the dashboard benches (bench/dashboard*.mjs) share: their command line (a size option and
// --postgres), the built app in this process on a database of its own (placeFor: a temp SQLite file
// or a fresh PostgreSQL schema), listening on 127.0.0.1, one store with a signed-up owner, and
// requests timed both by the client and by Fastify (reply.elapsedTime: request received → response
// sent), so each bench reads whichever clock it documents.
import { Buffer } from 'node:buffer';
import { parseArgs } from 'node:util';
import { placeFor } from './database.mjs';
import { importServerDependency, importServerModule } from './paths.mjs';

const SECRET = 'bench-secret-bench-secret-bench-secret-0123';
const OWNER = { email: 'dono@bench.example', password: 'senha-do-bench-123' };

/**
 * `size`: the bench's size option, e.g. `{ name: 'sales', fallback: 100_000 }` for `--sales N`.
 * `config`: fields laid over loadConfig's (e.g. trustProxy). Close what it returns with `close()`.
 */
export async function startDashboardBench({ size, config: overrides = {} }) {
  const { values } = parseArgs({
    options: { [size.name]: { type: 'string' }, postgres: { type: 'boolean', default: false } },
  });
  const pgUrl = values.postgres ? process.env.STOREFRONT_TEST_DATABASE_URL : null;
  if (values.postgres && !pgUrl) throw new Error('--postgres needs STOREFRONT_TEST_DATABASE_URL');

  const { openDatabase } = await importServerModule('platform/db/database.js');
  const { migrateToLatest } = await importServerModule('platform/db/migrations/migrate.js');
  const { loadConfig } = await importServerModule('platform/config/config.js');
  const { buildApp } = await importServerModule('channels/server/app.js');
  const { createStore } = await importServerModule('flows/create-store.js');
  const { createApiKey } = await importServerModule('platform/api-keys/api-keys.js');
  const { addMember } = await importServerModule('domain/accounts/team.js');
  const { hashPassword } = await importServerModule('domain/accounts/passwords.js');
  const { sql } = await importServerDependency('kysely');

  const place = await placeFor(pgUrl ? 'postgres' : 'sqlite', pgUrl);
  const db = openDatabase(place.databaseUrl, place.openOptions);
  let app = null;
  const close = async () => {
    await app?.close();
    await db.close();
    await place.cleanup();
  };
  try {
    await migrateToLatest(db.kysely);
    const config = {
      ...loadConfig({ DATABASE_URL: place.databaseUrl, STOREFRONT_SECRET: SECRET }),
      ...overrides,
    };
    app = await buildApp({ config, db: db.kysely, logger: false });
    /** Server time of the latest answer to each URL (ms). */
    const serverMs = new Map();
    app.addHook('onResponse', async (request, reply) => {
      serverMs.set(request.url, reply.elapsedTime);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${app.server.address().port}`;

    const store = await createStore(db.kysely, { name: 'Loja Bench' });
    await addMember(db.kysely, {
      storeId: store.id,
      email: OWNER.email,
      role: 'owner',
      passwordHash: await hashPassword(OWNER.password),
    });

    /** One request, never redirected: status, headers, body (bytes and text), client and server ms. */
    async function send(path, { cookie, headers = {}, ...init } = {}) {
      const start = process.hrtime.bigint();
      const request = () =>
        globalThis.fetch(`${base}${path}`, {
          redirect: 'manual',
          ...init,
          headers: cookie ? { ...headers, cookie } : headers,
        });
      // A kept-alive socket the server closed while the bench was busy (seeding) fails once: retry.
      const response = await request().catch(request);
      const body = Buffer.from(await response.arrayBuffer());
      const clientMs = Number(process.hrtime.bigint() - start) / 1e6;
      return {
        status: response.status,
        headers: response.headers,
        body,
        text: body.toString(),
        clientMs,
        serverMs: serverMs.get(path),
      };
    }
    /** `send`, failing unless the answer is 200. */
    async function timed(path, init) {
      const answer = await send(path, init);
      if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
      return answer;
    }
    /** The login form posted with `email` and `password` (`headers` added, e.g. x-forwarded-for). */
    const login = (email, password, headers = {}) =>
      send('/dashboard/login', {
        method: 'POST',
        headers: { ...headers, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
        body: new globalThis.URLSearchParams({ email, password }).toString(),
      });
    /** The owner's session cookie (`sf_session=…`). */
    const signInOwner = async (headers) => {
      const answer = await login(OWNER.email, OWNER.password, headers);
      return /sf_session=[^;]+/.exec(answer.headers.get('set-cookie'))[0];
    };
    /** A POSTer to the public API with a test key of `scopes`, answering the parsed JSON. */
    const apiClient = async (scopes) => {
      const { key } = await createApiKey(db.kysely, { storeId: store.id, mode: 'test', scopes });
      return (path, body) =>
        globalThis
          .fetch(`${base}/api/public/v1${path}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify(body ?? {}),
          })
          .then((r) => r.json());
    };

    return {
      size: Number(values[size.name]) || size.fallback,
      postgres: Boolean(pgUrl),
      dbName: pgUrl ? 'postgres' : 'sqlite',
      db,
      app,
      config,
      base,
      store,
      owner: OWNER,
      send,
      timed,
      login,
      signInOwner,
      apiClient,
      /**
       * After seeding PostgreSQL, what autovacuum would soon do to `table` (in the bench's schema):
       * VACUUM ANALYZE, its planner statistics and visibility map, so autovacuum does not start on
       * the loaded table in the middle of the measurements.
       */
      analyze: (table) => sql`vacuum analyze ${sql.table(table)}`.execute(db.kysely),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
