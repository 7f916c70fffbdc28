import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../../../', import.meta.url).pathname;
const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('npm run pack:client', () => {
  it('packs the client into a tarball another project installs and loads, as ESM and CommonJS', () => {
    const out = mkdtempSync(join(tmpdir(), 'sf-pack-'));
    const tarball = run('node', ['scripts/pack-client.mjs', out], ROOT).trim().split('\n').at(-1)!;
    expect(tarball).toMatch(/storefront-client-\d+\.\d+\.\d+\.tgz$/);
    const files = run('tar', ['tzf', tarball], out).split('\n');
    expect(files).toEqual(
      expect.arrayContaining([
        'package/package.json',
        'package/dist/esm/index.js',
        'package/dist/cjs/index.js',
      ]),
    );
    expect(files.filter((f) => f.includes('/src/') || f.includes('/test/'))).toEqual([]);

    const project = mkdtempSync(join(tmpdir(), 'sf-consumer-'));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    // No dependencies to fetch: it installs offline.
    run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], project);
    const loaded = run(
      'node',
      [
        '--input-type=module',
        '-e',
        `import { Storefront } from '@storefront/client';
         import { createRequire } from 'node:module';
         const cjs = createRequire(import.meta.url)('@storefront/client');
         const client = new Storefront({ apiKey: 'sk_test_x', baseUrl: 'http://127.0.0.1:1' });
         console.log(typeof client.pix.create, typeof cjs.Storefront, typeof cjs.verifyWebhook);`,
      ],
      project,
    );
    expect(loaded.trim()).toBe('function function function');
  }, 180_000);
});
