// The two processes under load: the built Storefront server, and the bare Fastify baseline.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startNodeProcess } from './child-process.mjs';
import { freePort } from './free-port.mjs';
import { baselineScript, serverBin } from './paths.mjs';

/** `storefront serve` as production runs it: auth, rate limiting (on, never capping), every plugin. */
export async function startStorefront({ database, options, profileDir }) {
  const port = await freePort();
  const env = { ...process.env };
  delete env.REDIS_URL; // the in-process limiter: one node
  Object.assign(
    env,
    {
      DATABASE_URL: database.databaseUrl,
      STOREFRONT_SECRET: randomBytes(32).toString('base64url'),
      HOST: '127.0.0.1',
      PORT: String(port),
      STOREFRONT_RATE_LIMIT: String(options.rateLimit),
      STOREFRONT_WORKER: 'inline',
      LOG_LEVEL: options.logLevel,
      NODE_ENV: 'production',
    },
    database.serverEnv, // last: a scenario's own settings (STOREFRONT_PROCESSES, STOREFRONT_WORKER) win
  );
  // Extra V8/Node flags for the server only, e.g. BENCH_SERVER_NODE_ARGS='--trace-gc'.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  if (profileDir) {
    mkdirSync(profileDir, { recursive: true });
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
  }
  const url = `http://127.0.0.1:${port}`;
  const child = await startNodeProcess({
    script: options.serverBin ?? serverBin,
    args: ['serve'],
    nodeArgs,
    env,
    logFile: join(database.dir, 'server.log'),
    readyUrl: `${url}/readyz`,
  });
  return { ...child, url, api: `${url}/api/public/v1`, logFile: join(database.dir, 'server.log') };
}

export async function startBaseline({ logDir }) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = await startNodeProcess({
    script: baselineScript,
    env: { ...process.env, PORT: String(port), NODE_ENV: 'production' },
    logFile: join(logDir, 'baseline.log'),
    readyUrl: `${url}/healthz`,
  });
  return { ...child, url };
}
