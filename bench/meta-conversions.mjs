// Meta Conversions API benchmark: events per second from one conversion worker to a fake Graph API
// over HTTPS, against a bare baseline in the same run: the same undici client (the worker's own
// createMetaAgent: same keep-alive pool, TLS trust and concurrency) POSTing a same-sized event body from memory, with no
// queue, no database, no hashing.
//
//   npm run build -w packages/server && node bench/meta-conversions.mjs [--events 2000] [--concurrency 32]
//   STOREFRONT_TEST_DATABASE_URL=postgres://… node bench/meta-conversions.mjs --db postgres
//
// Opt-in, not part of `npm run bench` or CI. The fake Graph API (node:https, self-signed certificate,
// answering `{"events_received":1}`) runs in a child process, as Meta runs elsewhere; it counts the
// distinct event ids it received. A backlog of approved sales is made with the server's own
// approveSale (so each queues its Purchase in its transaction), then one worker is started and timed
// until the fake has every event id and every row is settled.
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { placeFor } from './lib/database.mjs';
import { forkTlsReceiver } from './lib/tls-receiver.mjs';
import { importServerModule } from './lib/paths.mjs';

const { values: opts } = parseArgs({
  options: {
    'graph-server': { type: 'boolean', default: false },
    db: { type: 'string', default: 'sqlite' },
    events: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '32' },
  },
});

if (opts['graph-server']) await runGraphServer();
else await runBench();

// ---------------------------------------------------------------- fake Graph API (child process)

async function runGraphServer() {
  const { createServer } = await import('node:https');
  const { key, cert } = JSON.parse(process.env.BENCH_TLS);
  const ids = new Set();
  let requests = 0;
  const answer = JSON.stringify({ events_received: 1, messages: [], fbtrace_id: 'bench' });
  const server = createServer({ key, cert, keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      requests++;
      const id = /"event_id":"([^"]+)"/.exec(Buffer.concat(chunks).toString('utf8'))?.[1];
      if (id) ids.add(id);
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    });
  });
  process.on('message', (msg) => {
    if (msg === 'stats') process.send({ requests, distinct: ids.size, cpu: process.cpuUsage() });
    if (msg === 'reset') {
      ids.clear();
      requests = 0;
      process.send({ ok: true });
    }
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
}

// ---------------------------------------------------------------- the bench (parent process)

async function runBench() {
  const { openDatabase } = await importServerModule('platform/db/database.js');
  const { migrateToLatest } = await importServerModule('platform/db/migrations/migrate.js');
  const { loadConfig } = await importServerModule('platform/config/config.js');
  const { createStore } = await importServerModule('flows/create-store.js');
  const { createSecretBox } = await importServerModule('platform/values/secret-box.js');
  const { metaTokenAssociatedData } = await importServerModule('domain/stores/store-settings.js');
  const { approveSale } = await importServerModule('flows/approve-sale.js');
  const { createMetaAgent, startConversionWorker } = await importServerModule(
    'flows/send-meta-conversions.js',
  );
  const { metaEventOf, metaRequestBody } = await importServerModule('domain/conversions/meta-payload.js');
  const { postWebhook } = await importServerModule('platform/outbound/post.js');
  const { newUuid } = await importServerModule('platform/values/ids.js');
  const { nowIso } = await importServerModule('platform/values/time.js');

  const graph = await forkTlsReceiver({
    script: new URL(import.meta.url).pathname,
    flag: '--graph-server',
    pollMs: 20,
  });
  const { port, ask, waitForDistinct } = graph;

  const pgUrl = process.env.STOREFRONT_TEST_DATABASE_URL;
  if (opts.db === 'postgres' && !pgUrl) throw new Error('--db postgres needs STOREFRONT_TEST_DATABASE_URL');
  const { databaseUrl, openOptions, cleanup } = await placeFor(opts.db, pgUrl);
  const db = openDatabase(databaseUrl, openOptions);
  await migrateToLatest(db.kysely);
  const apiUrl = `https://127.0.0.1:${port}/v21.0`;
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    STOREFRONT_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
    STOREFRONT_META_API_URL: apiUrl,
  });
  const meta = { ...config.meta, ca: graph.cert };
  const store = await createStore(db.kysely, { name: 'Loja Bench' });
  const token = 'EAAB' + 'x'.repeat(180);
  await db.kysely
    .updateTable('stores')
    .set({
      meta_pixel_id: '123456789012345',
      meta_access_token_sealed: createSecretBox(config.secret).seal(token, metaTokenAssociatedData(store.id)),
    })
    .where('id', '=', store.id)
    .execute();

  const total = Number(opts.events);
  const concurrency = Number(opts.concurrency);
  const customer = JSON.stringify({
    name: 'Maria da Silva',
    email: 'maria@example.com',
    whatsapp: '11987654321',
    document: '52998224725',
  });
  const cpuMicros = (u, before) => u.user + u.system - before.user - before.system;
  const log = { debug() {}, info: console.warn, warn: console.warn, error: console.error };

  try {
    progress(`queueing ${total} approved sales (each queues its Purchase in its transaction)`);
    const ids = [];
    for (let done = 0; done < total;) {
      await db.kysely.transaction().execute(async (trx) => {
        for (let i = 0; i < 100 && done < total; i++, done++) {
          const id = newUuid();
          ids.push(id);
          await approveSale(
            trx,
            {
              id,
              store_id: store.id,
              livemode: 0,
              amount_cents: 9700,
              payment_method: 'pix',
              pix_charge_id: null,
              pix_end_to_end_id: null,
              product_id: null,
              items: null,
              coupon: null,
              recovered: 0,
              customer,
              tracking: '{}',
              created_at: nowIso(),
            },
            { smtp: null },
          );
        }
      });
    }

    progress(`baseline: ${total} POSTs of a same-sized event through the same undici agent`);
    const sample = metaRequestBody(
      metaEventOf({
        kind: 'Purchase',
        eventId: ids[0],
        occurredAt: nowIso(),
        amountCents: 9700,
        productIds: [],
        customer: JSON.parse(customer),
        order: null,
        pageUrl: null,
      }),
      token,
      null,
    );
    // The worker's own client: same pool, same TLS trust (Node's CAs plus the fake's).
    const agent = createMetaAgent(meta, concurrency);
    let next = 0;
    const baselineCpu = process.cpuUsage();
    const baselineStart = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) {
          const body = sample.replace(ids[0], ids[next++]);
          const result = await postWebhook({
            dispatcher: agent,
            url: `${apiUrl}/123456789012345/events`,
            body,
            headers: { 'content-type': 'application/json' },
            timeoutMs: meta.timeoutMs,
          });
          if (!result.ok) throw new Error(`baseline POST failed: ${result.status} ${result.error}`);
        }
      }),
    );
    const baselineMs = performance.now() - baselineStart;
    const baselineCpuUs = cpuMicros(process.cpuUsage(), baselineCpu);
    await waitForDistinct(total);
    await agent.close();
    await ask('reset');

    progress(`worker: ${total} queued events, one worker, ${concurrency} in flight`);
    const workerCpu = process.cpuUsage();
    const workerStart = performance.now();
    const worker = startConversionWorker({
      db: db.kysely,
      config: { meta, secret: config.secret, publicUrl: config.publicUrl },
      log,
      concurrency,
      pollIntervalMs: 50,
    });
    await waitForDistinct(total);
    for (;;) {
      const { n } = await db.kysely
        .selectFrom('conversion_events')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('status', '=', 'pending')
        .executeTakeFirstOrThrow();
      if (Number(n) === 0) break;
      await sleep(10);
    }
    const workerMs = performance.now() - workerStart;
    const workerCpuUs = cpuMicros(process.cpuUsage(), workerCpu);
    await worker.stop();
    const stats = await ask('stats');
    const sent = await db.kysely
      .selectFrom('conversion_events')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('status', '=', 'sent')
      .executeTakeFirstOrThrow();

    const baselineRate = (total / baselineMs) * 1000;
    const workerRate = (total / workerMs) * 1000;
    console.log(
      JSON.stringify(
        {
          database: opts.db,
          events: total,
          concurrency,
          baseline_events_per_s: Math.round(baselineRate),
          worker_events_per_s: Math.round(workerRate),
          ratio: Number((workerRate / baselineRate).toFixed(2)),
          cpu_us_per_event_baseline: Math.round(baselineCpuUs / total),
          cpu_us_per_event_worker: Math.round(workerCpuUs / total),
          requests_received_by_fake_in_worker_phase: stats.requests,
          distinct_event_ids: stats.distinct,
          rows_sent: Number(sent.n),
        },
        null,
        2,
      ),
    );
  } finally {
    graph.kill();
    await db.close();
    await cleanup();
  }
}

function progress(message) {
  console.error(`meta-conversions bench: ${message}`);
}
