// The server the step benches measure (purchase-step-cpu.mjs, purchase-step-perf.mjs): a fresh
// database of 1,000 products, `storefront serve` with the order limit out of the way, a keep-alive
// pool, the purchase context, and the worker's backlog to wait on.
import { prepareDatabase } from './database.mjs';
import { openBacklog, waitUntilDrained } from './purchase-cost.mjs';
import { bulk, httpPool, purchaseContext } from './purchase-steps.mjs';
import { productPagePath } from './purchase-stores.mjs';
import { startStorefront } from './servers.mjs';

/**
 * `runStep(states, step)` makes that step of `states.length` purchases in bulk, `concurrency` at a
 * time, each learning from its answer; `drained()` waits for the worker's backlog; `close()` stops
 * it all and removes the database.
 */
export async function startStepServer({ db, pgUrl, concurrency, serverBin = null }) {
  const database = await prepareDatabase({ kind: db, pgUrl, seedCount: 1000 });
  const serverEnv = { ...database.serverEnv, STOREFRONT_ORDER_RATE_LIMIT: '1000000' };
  const server = await startStorefront({
    database: { ...database, serverEnv },
    options: { rateLimit: 1_000_000, logLevel: 'info', serverBin },
    profileDir: null,
  });
  const backlog = await openBacklog(database);
  const pool = httpPool(server.url, concurrency);
  const close = async () => {
    await pool.close();
    await backlog.close();
    await server.stop();
    await database.cleanup();
  };
  let ctx;
  try {
    ctx = purchaseContext({
      origin: server.url,
      pagePath: await productPagePath(server, database),
      key: database.key,
    });
  } catch (error) {
    await close();
    throw error;
  }
  return {
    database,
    server,
    pool,
    ctx,
    close,
    drained: () => waitUntilDrained({ backlog, pids: [server.pid] }),
    runStep: (states, step) =>
      bulk(
        pool,
        states.map((state) => () => step.request(ctx, state)),
        concurrency,
        (i, text) => step.learn?.(states[i], text),
      ),
  };
}
