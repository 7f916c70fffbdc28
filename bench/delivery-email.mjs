// Delivery e-mail benchmark: e-mails per second from one worker to a local SMTP server, against a bare
// nodemailer baseline in the same run, and the time from an approved sale to the e-mail accepted.
//
//   npm run build -w packages/server && node bench/delivery-email.mjs [--emails 2000] [--latency-sales 200]
//   STOREFRONT_TEST_DATABASE_URL=postgres://… node bench/delivery-email.mjs --db postgres
//
// Opt-in, not part of `npm run bench` or CI. The SMTP server (the `smtp-server` library, STARTTLS with
// a self-signed certificate, AUTH PLAIN) runs in a child process, as a mail relay runs elsewhere; it
// notes when each Message-ID is accepted. Baseline: the same nodemailer pool (same connections, same
// TLS and AUTH, same message) sending straight from memory: no queue, no database, no template.
// Throughput: a backlog of approved sales with their e-mail queued (the server's own
// queueDeliveryEmail), then one worker started and timed until the last e-mail is accepted.
// Latency: sales paid one by one through the real API (POST /payments/pix, then simulate_payment) at
// a steady rate, the worker woken by the API's writes as in `serve`.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { placeFor } from './lib/database.mjs';
import { forkTlsReceiver } from './lib/tls-receiver.mjs';
import { importServerDependency, importServerModule } from './lib/paths.mjs';
import { latencySummary, percentile } from './lib/percentile.mjs';

const { values: opts } = parseArgs({
  options: {
    'smtp-server': { type: 'boolean', default: false },
    db: { type: 'string', default: 'sqlite' },
    emails: { type: 'string', default: '2000' },
    'latency-sales': { type: 'string', default: '200' },
    'latency-rate': { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '8' },
  },
});

const USER = 'bench';
const PASS = 'bench-pass';

if (opts['smtp-server']) await runSmtpServer();
else await runBench();

// ---------------------------------------------------------------- SMTP server (child process)

async function runSmtpServer() {
  const { SMTPServer } = await import('smtp-server');
  const { key, cert } = JSON.parse(process.env.BENCH_TLS);
  const accepted = new Map(); // Message-ID → ms when the server accepted it (end of DATA)
  let messages = 0;
  const server = new SMTPServer({
    key,
    cert,
    logger: false,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, callback) {
      if (auth.username === USER && auth.password === PASS) callback(null, { user: USER });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, _session, callback) {
      let head = '';
      stream.on('data', (chunk) => {
        if (head.length < 4096) head += chunk.toString('latin1');
      });
      stream.on('end', () => {
        const id = /^Message-ID: *(<[^>]+>)/im.exec(head)?.[1] ?? `unknown-${messages}`;
        messages++;
        if (!accepted.has(id)) accepted.set(id, Date.now());
        callback();
      });
    },
  });
  process.on('message', (msg) => {
    if (msg === 'stats') process.send({ messages, distinct: accepted.size, cpu: process.cpuUsage() });
    else if (msg === 'accepted') process.send({ accepted: [...accepted] });
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.server.address().port }));
}

// ---------------------------------------------------------------- the bench (parent process)

async function runBench() {
  const nodemailer = await importServerDependency('nodemailer');
  const { openDatabase } = await importServerModule('platform/db/database.js');
  const { migrateToLatest } = await importServerModule('platform/db/migrations/migrate.js');
  const { loadConfig } = await importServerModule('platform/config/config.js');
  const { buildApp } = await importServerModule('channels/server/app.js');
  const { createStore } = await importServerModule('flows/create-store.js');
  const { createApiKey } = await importServerModule('platform/api-keys/api-keys.js');
  const { queueDeliveryEmail } = await importServerModule('flows/queue-delivery-email.js');
  const { startEmailWorker, messageIdFor } = await importServerModule('flows/send-emails.js');
  const { composeDeliveryEmail } = await importServerModule('domain/email/template.js');
  const { newUuid } = await importServerModule('platform/values/ids.js');
  const { nowIso } = await importServerModule('platform/values/time.js');

  const smtpChild = await forkTlsReceiver({
    script: new URL(import.meta.url).pathname,
    flag: '--smtp-server',
    pollMs: 50,
  });
  const { port, ask, waitForDistinct } = smtpChild;

  const pgUrl = process.env.STOREFRONT_TEST_DATABASE_URL;
  if (opts.db === 'postgres' && !pgUrl) throw new Error('--db postgres needs STOREFRONT_TEST_DATABASE_URL');
  const { databaseUrl, openOptions, cleanup } = await placeFor(opts.db, pgUrl);
  const db = openDatabase(databaseUrl, openOptions);
  await migrateToLatest(db.kysely);
  const config = {
    ...loadConfig({
      DATABASE_URL: databaseUrl,
      STOREFRONT_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
      SMTP_URL: `smtp://${USER}:${PASS}@127.0.0.1:${port}`,
      STOREFRONT_MAIL_FROM: 'Loja Bench <vendas@bench.example.com>',
    }),
    rateLimitPerSecond: 1_000_000,
  };
  const app = await buildApp({ config, db: db.kysely, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const api = `http://127.0.0.1:${app.server.address().port}/api/public/v1`;
  const store = await createStore(db.kysely, { name: 'Loja Bench' });
  const { key } = await createApiKey(db.kysely, {
    storeId: store.id,
    mode: 'test',
    scopes: ['pix:write', 'products:write'],
  });
  const post = async (path, body) => {
    const headers = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await globalThis.fetch(`${api}${path}`, {
      method: 'POST',
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = await response.json();
    if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const product = await post('/products', {
    nome: 'Curso de Violão',
    preco: 97,
    link_acesso: 'https://cursos.example.com/violao',
    delivery_email_subject: 'Seu acesso a {{produto}}',
    delivery_email_body:
      'Olá {{nome}},\n\nObrigado pela compra de {{produto}} ({{valor}}) na {{loja}}.\n\nAcesse: {{link_acesso}}',
  });

  const log = { debug() {}, info: console.warn, warn: console.warn, error: console.error };
  const concurrency = Number(opts.concurrency);
  const workerOptions = {
    db: db.kysely,
    smtp: config.smtp,
    config,
    log,
    tls: { ca: smtpChild.cert },
    concurrency,
  };
  const cpuMicros = (u, before) => u.user + u.system - before.user - before.system;

  try {
    const total = Number(opts.emails);

    progress(`baseline: ${total} e-mails through nodemailer alone`);
    // Baseline: nodemailer alone, the same pool settings and message, `concurrency` sends in flight.
    const transport = nodemailer.createTransport({
      pool: true,
      maxConnections: Math.min(concurrency, 4),
      maxRequeues: 0,
      host: '127.0.0.1',
      port,
      secure: false,
      auth: { user: USER, pass: PASS },
      tls: { ca: smtpChild.cert },
    });
    const sample = composeDeliveryEmail({
      storeName: 'Loja Bench',
      customerName: 'Cliente',
      amountCents: 9700,
      items: [{ nome: product.nome, linkAcesso: product.link_acesso }],
      subject: product.delivery_email_subject,
      body: product.delivery_email_body,
    });
    let next = 0;
    const sendBaseline = (until) =>
      Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < until) {
            const n = next++;
            await transport.sendMail({
              from: config.smtp.from,
              to: { name: 'Cliente', address: `baseline-${n}@example.com` },
              messageId: `<baseline-${n}@bench.example.com>`,
              ...sample,
            });
          }
        }),
      );
    // Warm-up, untimed, so neither side pays for JIT and the first TLS handshakes alone.
    const warmup = Math.min(200, Math.ceil(total / 10));
    await sendBaseline(warmup);
    const baselineCpuBefore = process.cpuUsage();
    const baselineStarted = performance.now();
    await sendBaseline(warmup + total);
    const baselineSeconds = (performance.now() - baselineStarted) / 1000;
    const baselineCpuUs = cpuMicros(process.cpuUsage(), baselineCpuBefore) / total;
    transport.close();
    const sentBefore = warmup + total;
    await waitForDistinct(sentBefore);

    progress(`throughput: ${total} queued e-mails, one worker`);
    // Throughput: a backlog of approved sales with their e-mail queued, then one worker drains it.
    for (let done = 0; done < total; done += 500) {
      await db.kysely.transaction().execute(async (trx) => {
        for (let i = done; i < Math.min(total, done + 500); i++) {
          const row = {
            id: newUuid(),
            store_id: store.id,
            livemode: 0,
            status: 'approved',
            amount_cents: 9700,
            payment_method: 'pix',
            pix_charge_id: null,
            pix_end_to_end_id: null,
            product_id: product.id,
            customer: JSON.stringify({ name: `Cliente ${i}`, email: `cliente-${i}@example.com` }),
            created_at: nowIso(),
            refunded_at: null,
          };
          await trx.insertInto('sales').values(row).execute();
          await queueDeliveryEmail(trx, row, config);
        }
      });
    }
    const serverCpuBefore = (await ask('stats')).cpu;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    let worker = startEmailWorker(workerOptions);
    const drained = await waitForDistinct(sentBefore + total);
    const seconds = (performance.now() - started) / 1000;
    const workerCpuUs = cpuMicros(process.cpuUsage(), cpuBefore) / total;
    const smtpCpuUs = cpuMicros(drained.cpu, serverCpuBefore) / total;
    await worker.stop();
    const failed = await db.kysely
      .selectFrom('sales')
      .select('id')
      .where('delivery_email_status', '!=', 'sent')
      .execute();

    progress(`latency: ${opts['latency-sales']} sales through the API`);
    // Latency: sales paid through the API at a steady rate; the API's writes wake the worker.
    worker = startEmailWorker(workerOptions);
    const count = Number(opts['latency-sales']);
    const gapMs = 1000 / Number(opts['latency-rate']);
    const t0 = performance.now();
    const paying = [];
    const answeredAt = new Map(); // charge id → when simulate_payment answered (the sale committed)
    for (let i = 0; i < count; i++) {
      await sleep(Math.max(0, t0 + i * gapMs - performance.now()));
      paying.push(
        post('/payments/pix', {
          amount: 97,
          product_id: product.id,
          customer: { name: `Comprador ${i}`, email: `comprador-${i}@example.com` },
        }).then((charge) =>
          post(`/payments/pix/${charge.id}/simulate_payment`).then(() => {
            answeredAt.set(charge.id, Date.now());
            return charge.id;
          }),
        ),
      );
    }
    const chargeIds = await Promise.all(paying);
    await waitForDistinct(sentBefore + total + count);
    await worker.stop();
    const sales = await db.kysely
      .selectFrom('sales')
      .select(['id', 'created_at', 'pix_charge_id'])
      .where('pix_charge_id', 'in', chargeIds)
      .execute();
    const { accepted } = await ask('accepted');
    const acceptedAt = new Map(accepted);
    const latencies = sales
      .map((s) => acceptedAt.get(messageIdFor(s.id, config.smtp)) - Date.parse(s.created_at))
      .sort((a, b) => a - b);
    const afterAnswer = sales
      .map((s) => acceptedAt.get(messageIdFor(s.id, config.smtp)) - answeredAt.get(s.pix_charge_id))
      .sort((a, b) => a - b);
    const final = await ask('stats');

    console.log(
      JSON.stringify(
        {
          database: opts.db,
          concurrency,
          throughput: {
            emails: total,
            baseline_nodemailer_per_second: Math.round(total / baselineSeconds),
            worker_per_second: Math.round(total / seconds),
            ratio_to_baseline: round(baselineSeconds / seconds),
            baseline_cpu_us_per_email: Math.round(baselineCpuUs),
            worker_cpu_us_per_email: Math.round(workerCpuUs),
            smtp_server_cpu_us_per_email: Math.round(smtpCpuUs),
            not_sent: failed.length,
            load_average: os.loadavg().map(round),
          },
          sale_to_accepted_ms: {
            sales: latencies.length,
            rate_per_second: Number(opts['latency-rate']),
            ...latencySummary(latencies),
            // From simulate_payment's answer (the sale's transaction committed) instead of its start.
            p50_after_payment_answer: percentile(afterAnswer, 50),
            p90_after_payment_answer: percentile(afterAnswer, 90),
          },
          smtp_server: { messages: final.messages, distinct_message_ids: final.distinct },
        },
        null,
        2,
      ),
    );
  } finally {
    smtpChild.kill();
    await app.close();
    await db.close();
    await cleanup();
  }
}

function progress(message) {
  console.error(`delivery-email bench: ${message}`);
}
function round(n) {
  return Math.round(n * 100) / 100;
}
