// `npm run bench -- --peer vendure`: Storefront beside Vendure (the peer a merchant would pick
// instead), the same operations on the same machine in alternating rounds (bench/README.md, "Peer").
// Opt-in and never in CI: it installs @vendure/core from the npm registry into a temporary folder.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startNodeProcess } from '../lib/child-process.mjs';
import { prepareDatabase } from '../lib/database.mjs';
import { freePort } from '../lib/free-port.mjs';
import { percentile } from '../lib/percentile.mjs';
import { peakRssBytes, resetPeakRss, toMb, watchCpu } from '../lib/proc-stats.mjs';
import { startStorefront } from '../lib/servers.mjs';

const log = (message) => console.error(`bench peer: ${message}`);
const pick = (list) => list[Math.floor(Math.random() * list.length)];
const DESCRIPTION = 'Aulas gravadas, material em PDF e certificado. Produto criado pelo benchmark.';

/** `npm install` of Vendure and the SQLite driver it needs, into `dir`; the version is printed. */
function installVendure(dir) {
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'vendure-peer', private: true, type: 'module' }),
  );
  log(`installing @vendure/core into ${dir} (npm registry)`);
  execFileSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--loglevel=error', '@vendure/core', 'better-sqlite3'],
    {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const version = JSON.parse(execFileSync('npm', ['ls', '@vendure/core', '--json'], { cwd: dir }))
    .dependencies['@vendure/core'].version;
  log(`@vendure/core ${version}`);
  return version;
}

async function graphql(url, query, variables, headers = {}) {
  const res = await globalThis.fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json();
  if (!res.ok || body.errors) throw new Error(`${url}: ${res.status} ${JSON.stringify(body.errors ?? body)}`);
  return { data: body.data, res };
}

// What a storefront page needs of a product on each side: Vendure keeps prices on variants, so
// the selection asks for them (caveats in bench/README.md).
const VENDURE_PRODUCT_FIELDS =
  'id name slug description enabled variants { id sku name price priceWithTax currencyCode }';
const VENDURE_GET = `query ($id: ID!) { product(id: $id) { ${VENDURE_PRODUCT_FIELDS} } }`;
const VENDURE_LIST = `query { products(options: { take: 20 }) { totalItems items { ${VENDURE_PRODUCT_FIELDS} } } }`;
const VENDURE_CREATE_PRODUCT = `mutation ($input: CreateProductInput!) { createProduct(input: $input) { id } }`;
const VENDURE_CREATE_VARIANTS = `mutation ($input: [CreateProductVariantInput!]!) { createProductVariants(input: $input) { id } }`;

async function startVendure(dir, password) {
  copyFileSync(
    fileURLToPath(new URL('./vendure-server.mjs', import.meta.url)),
    join(dir, 'vendure-server.mjs'),
  );
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    VENDURE_DB_PATH: join(dir, 'vendure.sqlite'),
    VENDURE_SUPERADMIN_PASSWORD: password,
  };
  log('vendure: populate() with the minimal initial data');
  execFileSync(process.execPath, [join(dir, 'vendure-server.mjs'), 'populate'], {
    cwd: dir,
    env: { ...env, PORT: String(await freePort()) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = await startNodeProcess({
    script: join(dir, 'vendure-server.mjs'),
    args: ['serve'],
    env: { ...env, PORT: String(port) },
    logFile: join(dir, 'vendure.log'),
    readyUrl: `${url}/health`,
  });
  const admin = `${url}/admin-api`;
  const { res } = await graphql(
    admin,
    'mutation ($u: String!, $p: String!) { login(username: $u, password: $p) { ... on CurrentUser { id } } }',
    { u: 'superadmin', p: password },
  );
  const token = res.headers.get('vendure-auth-token');
  if (!token) throw new Error('vendure: login gave no token');
  return { ...child, url, admin, shop: `${url}/shop-api`, auth: { authorization: `Bearer ${token}` } };
}

/** The systems' own creation, through their own API: one product with its price. */
const creators = {
  storefront: (sf) => async (n) => {
    const res = await globalThis.fetch(`${sf.api}/products`, {
      method: 'POST',
      headers: {
        ...sf.headers,
        'content-type': 'application/json',
        'idempotency-key': `peer-${sf.runId}-${n}`,
      },
      body: JSON.stringify({ nome: `Produto peer ${sf.runId} ${n}`, preco: 97.9, descricao: DESCRIPTION }),
    });
    if (res.status !== 201) throw new Error(`storefront create: ${res.status} ${await res.text()}`);
    return (await res.json()).id;
  },
  vendure: (v) => async (n) => {
    const name = `Produto peer ${v.runId} ${n}`;
    const slug = `produto-peer-${v.runId}-${n}`;
    const input = { translations: [{ languageCode: 'en', name, slug, description: DESCRIPTION }] };
    const product = (await graphql(v.admin, VENDURE_CREATE_PRODUCT, { input }, v.auth)).data.createProduct;
    const variant = {
      productId: product.id,
      sku: slug,
      price: 9790,
      translations: [{ languageCode: 'en', name }],
    };
    await graphql(v.admin, VENDURE_CREATE_VARIANTS, { input: [variant] }, v.auth);
    return product.id;
  },
};

const readers = {
  storefront: {
    get: (sf) => () => globalThis.fetch(`${sf.api}/products/${pick(sf.ids)}`, { headers: sf.headers }),
    list: (sf) => () => globalThis.fetch(`${sf.api}/products?limit=20`, { headers: sf.headers }),
  },
  // Anonymous Shop API reads, as a storefront page would make them.
  vendure: {
    get: (v) => () => graphql(v.shop, VENDURE_GET, { id: pick(v.ids) }),
    list: (v) => () => graphql(v.shop, VENDURE_LIST, {}),
  },
};

/** `concurrency` loops calling `op` for `seconds`: operations/s, p99 (ms), and the server's CPU per op. */
async function closedLoop({ op, pid, concurrency, seconds }) {
  const latencies = [];
  let failures = 0;
  resetPeakRss(pid);
  const cpu = watchCpu(pid, [pid, process.pid]);
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        try {
          const res = await op();
          if (res?.status !== undefined && res.status >= 300) failures++;
          if (res?.body && typeof res.arrayBuffer === 'function') await res.arrayBuffer();
        } catch {
          failures++;
        }
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const { cpuSeconds, otherCpuPct } = cpu();
  latencies.sort((a, b) => a - b);
  return {
    rps: Math.round(latencies.length / elapsed),
    p99: Math.round(percentile(latencies, 99) * 10) / 10,
    cpuUsPerRequest: Math.round((cpuSeconds * 1e6) / latencies.length),
    peakRssMb: toMb(peakRssBytes(pid)),
    failures,
    otherCpuPct,
  };
}

async function seed(system, create, count) {
  const ids = [];
  let n = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (n < count) ids.push(await create(++n));
    }),
  );
  log(`${system}: seeded ${ids.length} products through its own API`);
  return ids;
}

export async function runVendurePeer(options) {
  const products = options.peerProducts;
  const dir = mkdtempSync(join(tmpdir(), 'storefront-peer-vendure-'));
  const database = await prepareDatabase({ kind: 'sqlite', seedCount: 0 });
  let sfServer = null;
  let vendure = null;
  try {
    const version = installVendure(dir);
    vendure = await startVendure(dir, randomBytes(18).toString('base64url'));
    sfServer = await startStorefront({ database, options, profileDir: null });
    const sf = {
      ...sfServer,
      headers: { authorization: `Bearer ${database.key}` },
      runId: randomBytes(4).toString('hex'),
    };
    const v = { ...vendure, runId: sf.runId };
    const servers = { storefront: sf, vendure: v };
    for (const system of Object.keys(servers)) {
      servers[system].ids = await seed(system, creators[system](servers[system]), products);
    }
    let counter = products;
    const ops = {
      get: (system) => readers[system].get(servers[system]),
      'list 20': (system) => readers[system].list(servers[system]),
      create: (system) => {
        const create = creators[system](servers[system]);
        return () => create(++counter);
      },
    };
    const samples = [];
    for (let round = 0; round < options.peerRounds; round++) {
      for (const [name, make] of Object.entries(ops)) {
        const order = round % 2 === 0 ? ['storefront', 'vendure'] : ['vendure', 'storefront'];
        for (const system of order) {
          const op = make(system);
          await closedLoop({ op, pid: servers[system].pid, concurrency: options.connections, seconds: 2 }); // warm-up
          const result = await closedLoop({
            op,
            pid: servers[system].pid,
            concurrency: options.connections,
            seconds: options.durationSeconds,
          });
          log(`round ${round + 1} ${name} ${system}: ${JSON.stringify(result)}`);
          samples.push({ round, scenario: name, system, ...result });
        }
      }
    }
    const rows = [];
    for (const name of Object.keys(ops)) {
      const of = (system) => samples.filter((s) => s.scenario === name && s.system === system);
      const median = (system, field) =>
        percentile(
          of(system)
            .map((s) => s[field])
            .sort((a, b) => a - b),
          50,
        );
      for (const system of ['storefront', 'vendure']) {
        rows.push({
          scenario: name,
          system: system === 'vendure' ? `vendure ${version}` : 'storefront',
          'ops/s': median(system, 'rps'),
          'p99 ms': median(system, 'p99'),
          'CPU µs/op': median(system, 'cpuUsPerRequest'),
          'peak RSS MB': median(system, 'peakRssMb'),
          errors: of(system).reduce((sum, s) => sum + s.failures, 0),
          'other CPU': `${median(system, 'otherCpuPct')}%`,
        });
      }
      const [sfRow, vRow] = rows.slice(-2);
      sfRow['× vendure (CPU)'] = Math.round((vRow['CPU µs/op'] / sfRow['CPU µs/op']) * 10) / 10;
    }
    console.log(formatTable(rows));
    console.log(
      `SQLite on both sides, ${products} products seeded through each API, ${options.connections} concurrent ` +
        `loops, ${options.durationSeconds} s per run, median of ${options.peerRounds} alternating rounds; ` +
        'a Vendure create is createProduct + createProductVariants.',
    );
    return { version, samples, rows };
  } finally {
    await sfServer?.stop();
    await vendure?.stop();
    await database.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

function formatTable(rows) {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (r, c) => (r[c] == null ? '' : String(r[c]));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r, c).length)));
  const line = (cells) =>
    cells.map((v, i) => (i < 2 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ');
  return [
    line(columns),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map((r) => line(columns.map((c) => cell(r, c)))),
  ].join('\n');
}
