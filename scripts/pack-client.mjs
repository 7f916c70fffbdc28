#!/usr/bin/env node
// Builds the client (packages/client) and packs it into an installable tarball, the way to use it
// from this repository until it is published:
//
//   npm run pack:client                 writes storefront-client-<version>.tgz at the repository root
//   node scripts/pack-client.mjs <dir>  writes it into <dir>
//
// then, in your project: npm install /path/to/storefront-client-<version>.tgz
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const destination = resolve(process.argv[2] ?? ROOT);
const npm = (...args) =>
  execFileSync('npm', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

npm('run', 'build', '--silent', '-w', 'packages/client');
const [packed] = JSON.parse(
  npm('pack', '--json', '-w', 'packages/client', '--pack-destination', destination),
);
console.log(join(destination, packed.filename));
