// Every scenario against one database: prepare it, start the server, measure, stop, clean up.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { prepareDatabase } from './database.mjs';
import { requestJson } from './http.mjs';
import { measureBaseline, measureServer, sampleOf } from './measure.mjs';
import { resultsDir } from './paths.mjs';
import { MIXED, SCENARIOS, missingRoutes } from './scenarios.mjs';
import { startStorefront } from './servers.mjs';
import { waitForQuiet } from './quiet.mjs';
import { soak } from './soak.mjs';

const log = (message) => console.error(`bench: ${message}`);

const quiet = (options) => waitForQuiet({ maxPct: 20, maxWaitSeconds: options.quietWaitSeconds, log });

const selected = (options, scenario) => !options.only || options.only.includes(scenario.name);

function row(scenario, db, fields) {
  return {
    scenario: scenario.name,
    title: scenario.title,
    db,
    targetRatio: scenario.targetRatio ?? null,
    targetP99Ms: null,
    ...fields,
  };
}

async function measureOne({ scenario, ctx, server, baseline, options }) {
  const note = scenario.prepare ? await scenario.prepare(ctx) : null;
  const next = scenario.make(ctx);
  await quiet(options);
  const sample = await sampleOf(server.url, next);
  log(`${scenario.name}: baseline (${sample.bytes} bytes, ${sample.status})`);
  const base = options.baseline ? await measureBaseline({ baseline, sample, options }) : {};
  log(`${scenario.name}: server`);
  const result = await measureServer({ server, next, options });
  return row(scenario, ctx.db, {
    status: 'ok',
    note,
    responseBytes: sample.bytes,
    ...result,
    baselineRps: base.rps,
    baselineP99: base.p99,
    baselinePeakRssMb: base.peakRssMb,
    baselineOtherCpuPct: base.otherCpuPct,
    baselineCpuUsPerRequest: base.cpuUsPerRequest,
    cpuRatio:
      base.cpuUsPerRequest > 0
        ? Math.round((base.cpuUsPerRequest / result.cpuUsPerRequest) * 100) / 100
        : null,
    ratio: base.rps > 0 ? Math.round((result.rps / base.rps) * 100) / 100 : null,
  });
}

/** Mixed: its maximum first, then 50% of it through `overallRate`, p99 being the figure. */
async function measureMixed({ ctx, server, options }) {
  await MIXED.prepare(ctx);
  await quiet(options);
  log('mixed: maximum');
  const max = await measureServer({ server, next: MIXED.make(ctx), options });
  const overallRate = Math.max(1, Math.round(max.rps / 2));
  await quiet(options);
  log(`mixed: at 50% of maximum (${overallRate} req/s)`);
  const half = await measureServer({ server, next: MIXED.make(ctx), options, overallRate });
  return {
    overallRate,
    rows: [
      row({ ...MIXED, name: 'mixed-max' }, ctx.db, { status: 'ok', ...max }),
      row({ ...MIXED, name: 'mixed-50%' }, ctx.db, {
        status: 'ok',
        ...half,
        targetP99Ms: MIXED.targetP99Ms,
        note: `overallRate ${overallRate} req/s`,
      }),
    ],
  };
}

export async function runDatabase({ kind, options, baseline, runId }) {
  log(`${kind}: preparing (${options.seedProducts} products seeded by direct SQL)`);
  const database = await prepareDatabase({ kind, pgUrl: options.pgUrl, seedCount: options.seedProducts });
  log(`${kind}: seeded ${database.productIds.length} products in ${database.seedMs} ms`);
  const profileDir = options.profile ? join(resultsDir, 'profiles', `${runId}-${kind}`) : null;
  const rows = [];
  let soakResult = null;
  let server = null;
  try {
    server = await startStorefront({ database, options, profileDir });
    const openapi = await requestJson(`${server.api}/openapi.json`);
    const ctx = {
      db: kind,
      origin: server.url,
      headers: { authorization: `Bearer ${database.key}` },
      productIds: database.productIds,
      checkoutId: database.checkoutId,
      handle: database.handle,
      runId: `bench-${randomBytes(4).toString('hex')}`,
      counter: 0,
    };
    for (const scenario of SCENARIOS.filter((s) => selected(options, s))) {
      const missing = missingRoutes(openapi, scenario.needs);
      if (missing.length > 0) {
        rows.push(
          row(scenario, kind, { status: 'skipped', reason: `not served yet: ${missing.join(', ')}` }),
        );
        continue;
      }
      try {
        const measured = await measureOne({ scenario, ctx, server, baseline, options });
        log(
          `${scenario.name}: ${measured.rps} req/s (baseline ${measured.baselineRps ?? '—'}), ` +
            `p99 ${measured.p99} ms, ${measured.cpuUsPerRequest} CPU µs/req, other CPU ${measured.otherCpuPct}%`,
        );
        rows.push(measured);
      } catch (error) {
        rows.push(row(scenario, kind, { status: 'failed', reason: error.message.slice(0, 200) }));
      }
    }
    if (selected(options, MIXED)) {
      const missing = missingRoutes(openapi, MIXED.needs);
      if (missing.length > 0) {
        rows.push(row(MIXED, kind, { status: 'skipped', reason: `not served yet: ${missing.join(', ')}` }));
      } else {
        const mixed = await measureMixed({ ctx, server, options });
        rows.push(...mixed.rows);
        if (options.soakSeconds > 0) {
          await quiet(options);
          log(`soak: ${options.soakSeconds} s at ${mixed.overallRate} req/s, RSS every second`);
          soakResult = await soak({
            server,
            next: MIXED.make(ctx),
            options,
            overallRate: mixed.overallRate,
            seconds: options.soakSeconds,
          });
        }
      }
    }
  } finally {
    await server?.stop();
    if (profileDir) log(`${kind}: CPU profile in ${profileDir} (read it with node bench/profile-top.mjs)`);
    await database.cleanup();
  }
  return { rows, soak: soakResult ? { db: kind, ...soakResult } : null };
}
