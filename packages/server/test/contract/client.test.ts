import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ContractValidator } from '../support/contract.js';
import { TestApi } from '../support/test-api.js';

/**
 * The official client must not drift from the description: every route it calls is an operation of
 * the description, and its types check against types generated from it (scripts/openapi/; whether
 * those types are current is `npm run openapi:check`, run by CI).
 */

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const RESOURCES = `${ROOT}packages/client/src/resources/`;

/** `{ method: 'POST', path: path\`/webhooks/${id}/test\` }` and `core.list('/sales', …)` in the client. */
function clientRoutes(): Array<{ method: string; path: string; file: string }> {
  const routes: Array<{ method: string; path: string; file: string }> = [];
  for (const file of readdirSync(RESOURCES).filter((f) => f.endsWith('.ts'))) {
    const source = readFileSync(`${RESOURCES}${file}`, 'utf8').replace(/\s+/g, ' ');
    for (const match of source.matchAll(/method: '([A-Z]+)', path: (?:path)?[`']([^`']+)[`']/g)) {
      routes.push({ method: match[1]!, path: match[2]!, file });
    }
    for (const match of source.matchAll(/core\.list\((?:\(\) => path)?[`']([^`']+)[`']/g)) {
      routes.push({ method: 'GET', path: match[1]!, file });
    }
  }
  return routes.map((r) => ({ ...r, path: r.path.replace(/\$\{[^}]+\}/g, 'sample_id') }));
}

describe('the client and the description', () => {
  const api = new TestApi('sqlite');
  let document: any;
  beforeAll(async () => {
    await api.start();
    document = (await api.request('GET', '/openapi.json')).body;
    return () => api.stop();
  });

  it('every route the client calls is an operation of the description', () => {
    const validator = new ContractValidator(document);
    const routes = clientRoutes();
    expect(routes.length).toBeGreaterThan(20);
    const missing = routes.filter((r) => !validator.find(r.method, r.path));
    expect(missing, 'client routes the description does not have').toEqual([]);
  });

  it('the client types check against the generated types (tsc -p scripts/openapi)', async () => {
    const run = promisify(execFile);
    const result = await run('npx', ['tsc', '-p', 'scripts/openapi/tsconfig.json'], { cwd: ROOT }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error), failed: true }),
    );
    expect('failed' in result ? result.stdout : '').toBe('');
  }, 60_000);
});
