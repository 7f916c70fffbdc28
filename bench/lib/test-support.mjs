// The tests' own fake PSP and HTTPS receiver (packages/server/test/support), compiled with tsc into
// bench/.build/ so a bench drives exactly what the tests do; nothing is copied by hand.
import { execFileSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { importServerModule, repoDir } from './paths.mjs';

const support = join(repoDir, 'packages/server/test/support');
const build = join(repoDir, 'bench/.build');
/** Data files the support modules read beside themselves at run time. */
const DATA_FILES = ['api-pix-2.9.0-rec.schemas.json'];

/** Compiles `files` (names in test/support) and returns an importer of the compiled modules. */
export function buildTestSupport(files) {
  execFileSync(
    'npx',
    [
      'tsc',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--esModuleInterop',
      '--skipLibCheck',
      '--strict',
      '--outDir',
      build,
      '--rootDir',
      support,
      ...files.map((file) => join(support, file)),
    ],
    { cwd: repoDir, stdio: 'inherit' },
  );
  for (const file of DATA_FILES) copyFileSync(join(support, file), join(build, file));
  return (name) => import(join(build, name));
}

/** The Pix key of the benches' store at the fake PSP. */
export const BENCH_CHAVE = '2f6c1a0e-6a7d-4c1b-9a43-5be1f0a7c9d2';

/**
 * A store with the Pix key and its PSP settings pointing at the fake `psp`, the way
 * `pix-provider set` writes them, with the fake's payee account (live subscriptions need one);
 * `fromSupport` is the compiled test support of `buildTestSupport`.
 */
export async function liveBenchStore(db, secret, psp, fromSupport) {
  const { testPki } = await fromSupport('test-pki.js');
  const { RECEBEDOR_CONTA } = await fromSupport('fake-psp-rec.js');
  const { createStore } = await importServerModule('flows/create-store.js');
  const { createSecretBox } = await importServerModule('platform/values/secret-box.js');
  const { saveProviderSettings } = await importServerModule('domain/payments/api-pix/provider-settings.js');
  const store = await createStore(db, { name: 'Loja Bench', pixKey: BENCH_CHAVE });
  const pki = testPki();
  await saveProviderSettings(db, createSecretBox(secret), {
    storeId: store.id,
    baseUrl: psp.baseUrl,
    tokenUrl: psp.tokenUrl,
    clientId: psp.clientId,
    clientSecret: psp.clientSecret,
    identity: { certPem: pki.client.cert, keyPem: pki.client.key },
    caPem: pki.ca.cert,
    account: { account: RECEBEDOR_CONTA.conta, accountType: 'corrente', branch: RECEBEDOR_CONTA.agencia },
  });
  return store;
}
