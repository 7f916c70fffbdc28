// A flood of wrong dashboard logins from one address while the store's owner signs in from another:
// the attack of issue 31 item 3 (each login runs scrypt, 128 MiB, on libuv's pool). The owner's
// login is first timed alone (the bare figure), then while `--flood` wrong logins from one IP are in
// flight; the server's RSS is sampled every 20 ms. Reported: the owner's latency under the flood as a
// ratio to the bare one, the answers the flood got, and the RSS growth (peak during minus before).
//
//   npm run build -w packages/server && node bench/login-flood.mjs [--flood 30] [--rounds 3]
//   node bench/login-flood.mjs --postgres postgres://postgres@127.0.0.1:5432/test
//   node bench/login-flood.mjs --server /path/to/an/older/build/bin/storefront.js   (to compare builds)
//
// The store and the owner are made with the given build's own CLI (`migrate`, `stores create`,
// `users create --password-file`), so an older build is measured on its own schema. The server trusts
// X-Forwarded-For from 127.0.0.1 (STOREFRONT_TRUST_PROXY), so the flood and the owner have addresses
// of their own. An owner answered 503 (hashing busy) waits its Retry-After and tries again; the
// latency counts the whole way in.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startNodeProcess } from './lib/child-process.mjs';
import { placeFor } from './lib/database.mjs';
import { freePort } from './lib/free-port.mjs';
import { serverBin } from './lib/paths.mjs';
import { rssBytes, toMb } from './lib/proc-stats.mjs';

const { values } = parseArgs({
  options: {
    flood: { type: 'string', default: '30' },
    rounds: { type: 'string', default: '3' },
    postgres: { type: 'string' },
    server: { type: 'string' },
  },
});
const floodSize = Number(values.flood);
const rounds = Number(values.rounds);
const pgUrl = values.postgres ?? null;
const bin = values.server ?? serverBin;

const place = await placeFor(pgUrl ? 'postgres' : 'sqlite', pgUrl);
const env = {
  PATH: process.env.PATH,
  DATABASE_URL: place.databaseUrl,
  STOREFRONT_SECRET: randomBytes(32).toString('base64url'),
  STOREFRONT_TRUST_PROXY: '127.0.0.1',
  LOG_LEVEL: 'warn',
  NODE_ENV: 'production',
  ...place.serverEnv,
};
const cli = (...args) => execFileSync(process.execPath, [bin, ...args], { env, encoding: 'utf8' });
cli('migrate');
const store = JSON.parse(cli('stores', 'create', '--name', 'Loja Bench', '--json'));
const owner = { email: 'dona@loja.example', password: `senha-${randomBytes(8).toString('hex')}` };
const passwordFile = join(place.dir, 'password');
writeFileSync(passwordFile, `${owner.password}\n`);
cli(
  'users',
  'create',
  '--store',
  store.id,
  '--email',
  owner.email,
  '--role',
  'owner',
  '--password-file',
  passwordFile,
);

const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
const server = await startNodeProcess({
  script: bin,
  args: ['serve'],
  env: { ...env, HOST: '127.0.0.1', PORT: String(port) },
  logFile: join(place.dir, 'server.log'),
  readyUrl: `${origin}/readyz`,
});

async function login(email, password, ip) {
  const res = await globalThis.fetch(`${origin}/dashboard/login`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip },
    body: new globalThis.URLSearchParams({ email, password }).toString(),
    redirect: 'manual',
  });
  await res.text();
  return { status: res.status, retryAfter: Number(res.headers.get('retry-after') ?? 0) };
}

/** The owner's way in from `ip`: ms until the 303, retrying after a 503's Retry-After. */
async function ownerLogin(ip) {
  const started = performance.now();
  const statuses = [];
  for (;;) {
    const { status, retryAfter } = await login(owner.email, owner.password, ip);
    statuses.push(status);
    if (status !== 503 || statuses.length > 20) break;
    await sleep(retryAfter * 1000);
  }
  return { ms: performance.now() - started, statuses };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x) => Math.round(x * 10) / 10;

// Warm up (the first login makes the stand-in hash and fills the caches), then the bare figure.
await ownerLogin('198.51.100.1');
const bare = [];
for (let i = 0; i < rounds; i++) bare.push((await ownerLogin('198.51.100.1')).ms);

const results = [];
for (let round_ = 0; round_ < rounds; round_++) {
  await sleep(1000);
  const rssBefore = rssBytes(server.pid);
  let peak = rssBefore;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, rssBytes(server.pid) ?? 0);
      await sleep(20);
    }
  })();
  // Each round floods from an address of its own, so the per-IP counters of one round do not carry over.
  const floodIp = `203.0.113.${10 + round_}`;
  const flood = Promise.all(
    Array.from({ length: floodSize }, (_, i) => login(`alvo${i}@loja.example`, `errada-${i}`, floodIp)),
  );
  await sleep(50);
  const mine = await ownerLogin(`198.51.100.${20 + round_}`);
  const answers = await flood;
  sampling = false;
  await sampler;
  const floodStatuses = {};
  for (const { status } of answers) floodStatuses[status] = (floodStatuses[status] ?? 0) + 1;
  results.push({
    ownerMs: mine.ms,
    ownerStatuses: mine.statuses.join('→'),
    floodStatuses,
    rssGrowthMb: toMb(peak - rssBefore),
  });
}
await server.stop();
await place.cleanup();

const bareMs = median(bare);
const ownerMs = median(results.map((r) => r.ownerMs));
console.log(
  JSON.stringify(
    {
      server: bin,
      database: pgUrl ? 'postgres' : 'sqlite',
      flood: floodSize,
      bareOwnerLoginMs: round(bareMs),
      ownerLoginUnderFloodMs: round(ownerMs),
      ratio: round(ownerMs / bareMs),
      rssGrowthMb: median(results.map((r) => r.rssGrowthMb)),
      rounds: results.map((r) => ({ ...r, ownerMs: round(r.ownerMs) })),
    },
    null,
    2,
  ),
);
