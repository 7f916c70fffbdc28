// Command-line options of `npm run bench`: quick (CI-sized) or full mode, and a few filters.
import { parseArgs } from 'node:util';

const MODES = {
  // A few seconds per scenario: enough to catch a regression of the order of 2x, not to publish.
  quick: { warmupSeconds: 1, durationSeconds: 3, seedProducts: 5_000, soakSeconds: 0, quietWaitSeconds: 0 },
  // Real figures: 100k products before measuring, 10 s per run, a 60 s constant-load run.
  full: {
    warmupSeconds: 3,
    durationSeconds: 10,
    seedProducts: 100_000,
    soakSeconds: 60,
    quietWaitSeconds: 120,
  },
};

const USAGE = `npm run bench -- [--quick] [--only a,b] [--db sqlite,postgres] [--profile] [--log-level info]

  --quick        CI-sized run (3 s per scenario, 5k seeded products, no 60 s run)
  --only         comma list of scenario names (see bench/README.md)
  --db           sqlite, postgres or both (postgres needs STOREFRONT_TEST_DATABASE_URL)
  --profile      run the server under node --cpu-prof; profiles land in bench/results/profiles/
  --log-level    the server's LOG_LEVEL (default info, as production runs)
  --connections  concurrent connections (default 50)
  --duration     seconds per measured run, overriding the mode's
  --no-baseline  measure the server only (for profiling: the profile then holds no idle baseline turns)
  --quiet-wait   before each scenario, wait up to this many seconds for other processes to use under
                 20% of the CPU (default 120 in full mode, 0 in quick mode)
  --server       another build's bin/storefront.js, to compare a change against the current build
  --soak         seconds of the constant-load run (default 60 in full mode, 0 = none in quick mode)
  --peer vendure instead of the scenarios: Storefront beside Vendure (installed from the npm registry
                 into a temporary folder), get / list 20 / create in alternating rounds
  --peer-products  products seeded through each system's API for --peer (default 1000)
  --peer-rounds    alternating rounds for --peer (default 2)
  --no-save      do not write a result file`;

export function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      db: { type: 'string' },
      profile: { type: 'boolean', default: false },
      'log-level': { type: 'string', default: 'info' },
      connections: { type: 'string', default: '50' },
      'no-save': { type: 'boolean', default: false },
      'no-baseline': { type: 'boolean', default: false },
      duration: { type: 'string' },
      'quiet-wait': { type: 'string' },
      server: { type: 'string' },
      soak: { type: 'string' },
      peer: { type: 'string' },
      'peer-products': { type: 'string', default: '1000' },
      'peer-rounds': { type: 'string', default: '2' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const mode = values.quick ? 'quick' : 'full';
  const pgUrl = process.env.STOREFRONT_TEST_DATABASE_URL || null;
  const wanted = values.db ? values.db.split(',').map((s) => s.trim()) : ['sqlite', 'postgres'];
  const databases = wanted.filter((db) => db === 'sqlite' || (db === 'postgres' && pgUrl));
  const skippedDatabases = wanted.includes('postgres') && !pgUrl ? ['postgres'] : [];
  return {
    mode,
    ...MODES[mode],
    ...(values.duration ? { durationSeconds: Number(values.duration) } : {}),
    ...(values['quiet-wait'] ? { quietWaitSeconds: Number(values['quiet-wait']) } : {}),
    ...(values.soak ? { soakSeconds: Number(values.soak) } : {}),
    baseline: !values['no-baseline'],
    serverBin: values.server ?? null,
    connections: Number(values.connections),
    pipelining: 1,
    // High enough never to cap the load, low enough that the limiter still runs on every request.
    rateLimit: 1_000_000,
    only: values.only ? values.only.split(',').map((s) => s.trim()) : null,
    databases,
    skippedDatabases,
    pgUrl,
    profile: values.profile,
    logLevel: values['log-level'],
    save: !values['no-save'],
    peer: values.peer ?? null,
    peerProducts: Number(values['peer-products']),
    peerRounds: Number(values['peer-rounds']),
  };
}
