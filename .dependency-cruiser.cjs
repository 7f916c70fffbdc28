// The boundary of packages/server/src (docs/architecture.md): four layers, each importing only those
// below it (platform < domain < flows < channels), and domain modules that share only the kernel.
// `npm run lint` runs it; a violation names the rule, the importing file and the imported one.
const SRC = '^packages/server/src/';
const layer = (name) => `${SRC}${name}/`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'platform-imports-only-platform',
      comment: 'platform (db, http, config, jobs, outbound, html, metrics, values) knows no feature',
      severity: 'error',
      from: { path: layer('platform') },
      to: { path: `${SRC}(domain|flows|channels)/` },
    },
    {
      name: 'domain-imports-no-flow-or-channel',
      comment: 'a domain module is called by flows and channels, never the other way round',
      severity: 'error',
      from: { path: layer('domain') },
      to: { path: `${SRC}(flows|channels)/` },
    },
    {
      name: 'domain-modules-share-only-the-kernel',
      comment: 'what crosses two concepts is a flow; what every concept needs is the kernel',
      severity: 'error',
      from: { path: `${SRC}domain/([^/]+)/` },
      to: { path: layer('domain'), pathNot: [`${SRC}domain/$1/`, layer('domain/kernel')] },
    },
    {
      name: 'flows-import-no-channel',
      comment: 'a use case does not know which channel (API, page, dashboard, CLI) called it',
      severity: 'error',
      from: { path: layer('flows') },
      to: { path: layer('channels') },
    },
    {
      name: 'features-ask-capabilities-not-the-engine',
      comment: "which engine runs the SQL is platform/db's business; features ask row-locks.ts",
      severity: 'error',
      from: { path: SRC, pathNot: layer('platform/db') },
      to: { path: `${SRC}platform/db/sql-dialect\\.ts$` },
    },
    {
      name: 'layers-stay-inside-src',
      comment: 'the server imports nothing from its tests, benches or scripts',
      severity: 'error',
      from: { path: SRC },
      to: { path: '^(packages/server/test|bench|scripts)/' },
    },
  ],
  options: {
    includeOnly: SRC,
    tsConfig: { fileName: require('node:path').join(__dirname, 'packages/server/tsconfig.json') },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
