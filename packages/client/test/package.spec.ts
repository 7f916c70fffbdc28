import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';

import { VERSION } from '../src/index.js';
import type * as ClientSource from '../src/index.js';

/**
 * The built package, loaded by name at run time. A variable specifier keeps the typecheck from
 * needing dist/ (it runs before the build); the shape is the source's.
 */
const PACKAGE_NAME = '@storefront/client';
type ClientModule = typeof ClientSource;

// Runs from dist-test/test/, so the package root is two levels up; `npm test` builds dist/ first.
const packageRoot = new URL('../../', import.meta.url);
const require = createRequire(import.meta.url);

describe('the built package', () => {
  it('declares version 0.4.0, Node >= 18 and no runtime dependencies', () => {
    const manifest = JSON.parse(readFileSync(new URL('package.json', packageRoot), 'utf8'));
    assert.equal(manifest.version, '0.4.0');
    assert.equal(VERSION, manifest.version);
    assert.equal(manifest.engines.node, '>=18');
    assert.equal(manifest.dependencies, undefined);
  });

  it('loads as CommonJS with require, by name and by folder', () => {
    const byName = require('@storefront/client');
    const byFolder = require(packageRoot.pathname);
    assert.equal(typeof byName.Storefront, 'function');
    assert.equal(byFolder.Storefront, byName.Storefront);
    assert.ok(require.resolve('@storefront/client').endsWith('/dist/cjs/index.js'));
  });

  it('loads as an ES module with import', async () => {
    const esm = (await import(PACKAGE_NAME)) as ClientModule;
    assert.equal(typeof esm.Storefront, 'function');
    assert.equal(typeof esm.verifyWebhook, 'function');
    assert.notEqual(esm.Storefront, require('@storefront/client').Storefront, 'two separate builds');
  });

  it('recognises errors from the other build in isApiError and isTimeout', async () => {
    const esm = (await import(PACKAGE_NAME)) as ClientModule;
    const cjs = require('@storefront/client');
    assert.equal(esm.isTimeout(new cjs.TimeoutError(5)), true);
    const init = {
      status: 404,
      code: 'not_found',
      message: 'x',
      param: null,
      requestId: null,
      headers: new Headers(),
    };
    assert.equal(esm.isApiError(new cjs.NotFoundError(init)), true);
    assert.equal(cjs.isApiError(new esm.NotFoundError(init)), true);
  });
});
