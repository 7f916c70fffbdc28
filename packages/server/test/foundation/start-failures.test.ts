import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import type { ServiceProcess } from '../support/service-process.js';
import { startServe } from '../support/service-process.js';
import { TEST_SECRET } from '../support/test-api.js';

const freshSqlite = (name: string) => join(mkdtempSync(join(tmpdir(), `sf-${name}-`)), 'data', 'shop.sqlite');

/** What a person starting the service reads when it cannot start: one line on stderr, no stack trace. */
describe('a start that cannot succeed says why in one line', () => {
  it('LOG_LEVEL=verbose names the variable and the levels (a configuration error, exit 2)', async () => {
    const result = await runCli(
      { DATABASE_URL: `sqlite:${freshSqlite('log')}`, LOG_LEVEL: 'verbose', PORT: '0' },
      'serve',
    );
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      'storefront: invalid configuration: LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"',
    ]);
  });

  it('a HOST that is no name or address of this machine: exit 1, naming HOST and PORT', async () => {
    const result = await runCli(
      { DATABASE_URL: `sqlite:${freshSqlite('host')}`, HOST: 'no-such-host.invalid', PORT: '0' },
      'serve',
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      'storefront: cannot listen on HOST=no-such-host.invalid PORT=0: HOST is not an address of this machine; set HOST (127.0.0.1, 0.0.0.0, ::).',
    ]);
  });

  for (const command of ['serve', 'worker']) {
    it(`${command} with PostgreSQL unreachable: exit 1, the URL without its password, and the cause`, async () => {
      const result = await runCli(
        {
          DATABASE_URL: 'postgres://shop:s3cr3t-password@127.0.0.1:1/shop',
          STOREFRONT_SECRET: TEST_SECRET,
          PORT: '0',
        },
        command,
      );
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toEqual([
        'storefront: cannot use the database at postgres://shop:***@127.0.0.1:1/shop: connect ECONNREFUSED 127.0.0.1:1',
      ]);
      expect(result.stdout + result.stderr).not.toContain('s3cr3t-password');
    });
  }
});

/** Buyers' names, e-mails and CPFs are in the SQLite file: only the service's user may read it. */
describe('a new SQLite database', () => {
  let serve: ServiceProcess | null = null;
  afterEach(async () => {
    await serve?.kill();
    serve = null;
  });
  const mode = (path: string) => statSync(path).mode & 0o777;

  it('is said aloud at start, and its directory, file, -wal, -shm and secret are private', async () => {
    const path = freshSqlite('modes');
    ({ process: serve } = await startServe('new_sqlite', { DATABASE_URL: `sqlite:${path}` }));
    expect(serve.logLines(`creating a new database at ${path}`)).toHaveLength(1);
    expect(mode(join(path, '..'))).toBe(0o700);
    for (const file of [path, `${path}-wal`, `${path}-shm`]) expect(mode(file)).toBe(0o600);
    // Without STOREFRONT_SECRET the service generates one beside the database.
    const generated = await startServe('new_sqlite_secret', {
      DATABASE_URL: `sqlite:${freshSqlite('secret')}`,
      STOREFRONT_SECRET: '',
    });
    await generated.process.kill();
    const secretDir = /creating a new database at (\S+)\/shop\.sqlite/.exec(generated.process.output)![1]!;
    expect(mode(join(secretDir, 'storefront.secret'))).toBe(0o600);
    expect(mode(secretDir)).toBe(0o700);

    await serve.kill();
    // The same path again is the same database: nothing is said.
    ({ process: serve } = await startServe('new_sqlite_again', { DATABASE_URL: `sqlite:${path}` }));
    expect(serve.output).not.toContain('creating a new database');
  });
});
