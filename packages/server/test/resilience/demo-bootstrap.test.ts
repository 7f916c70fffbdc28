import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/db/database.js';
import { randomBase62 } from '../../src/platform/values/ids.js';
import { callApi, startServe } from '../support/service-process.js';
import { POSTGRES_URL } from '../support/test-databases.js';
import { eventually } from '../webhooks/delivery-harness.js';
import { NO_POSTGRES, describeWhen } from '../support/requirements.js';
import { DEMO_STORE_NAME } from '../../src/flows/demo-store.js';

/** A database with nothing in it, not even the migrations: what a first deployment starts on. */
interface EmptyDatabase {
  url: string;
  env: Record<string, string>;
  names(): Promise<string[]>;
  drop(): Promise<void>;
}

function emptySqlite(): EmptyDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'sf-bootstrap-'));
  const url = `sqlite:${join(dir, 'fresh.sqlite')}`;
  return {
    url,
    env: {},
    async names() {
      const db = openDatabase(url);
      const rows = await db.kysely.selectFrom('stores').select('name').execute();
      await db.close();
      return rows.map((row) => row.name);
    },
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function emptyPostgres(): Promise<EmptyDatabase> {
  const schema = `sf_test_${randomBase62(12).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL! });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  return {
    url: POSTGRES_URL!,
    env: { PGOPTIONS: `-c search_path=${schema}` },
    async names() {
      const { rows } = await admin.query(`select name from ${schema}.stores`);
      return rows.map((row) => row.name as string);
    },
    async drop() {
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    },
  };
}

const DIALECTS = [
  { dialect: 'sqlite', open: async () => emptySqlite() },
  { dialect: 'postgres', open: emptyPostgres },
] as const;

const KEY = /sk_test_[0-9A-Za-z]{40}/g;

/** The race was intermittent (5 of 24 starts on PostgreSQL): a few rounds per database. */
const ROUNDS = 2;

for (const { dialect, open } of DIALECTS) {
  const available = dialect === 'sqlite' || POSTGRES_URL;
  describeWhen(
    available,
    NO_POSTGRES,
    `two serve processes started at once on an empty database [${dialect}]`,
    () => {
      it(`both come up, with one Demo store and one printed key (${ROUNDS} rounds)`, async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const database = await open();
          const tag = `bootstrap_${randomBase62(6).toLowerCase()}`;
          const env = { DATABASE_URL: database.url, ...database.env, STOREFRONT_WORKER: 'off' };
          const started = await Promise.allSettled([
            startServe(`${tag}_a`, env),
            startServe(`${tag}_b`, env),
          ]);
          try {
            const nodes = started.map((result) => {
              if (result.status === 'rejected') throw result.reason;
              return result.value;
            });
            // The winner makes the Demo store once it listens and prints its key; the other has
            // finished starting by then.
            const printed = () => [
              ...new Set(nodes.flatMap(({ process }) => process.output.match(KEY) ?? [])),
            ];
            const keys = await eventually(async () => printed().length > 0 && printed(), 10_000);
            expect(keys).toHaveLength(1);
            expect(await database.names()).toEqual([DEMO_STORE_NAME]);
            // The printed key works on either node.
            for (const { url } of nodes) {
              expect((await callApi(url, 'GET', '/checkouts', { key: keys[0]! })).status).toBe(200);
            }
          } finally {
            for (const result of started)
              if (result.status === 'fulfilled') await result.value.process.kill();
            await database.drop();
          }
        }
      }, 180_000);
    },
  );
}
