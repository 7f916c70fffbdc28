// Where the bench finds the built server and writes its results.
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const benchDir = fileURLToPath(new URL('..', import.meta.url));
export const repoDir = fileURLToPath(new URL('../..', import.meta.url));
export const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
export const serverBin = fileURLToPath(new URL('../../packages/server/bin/storefront.js', import.meta.url));
export const baselineScript = fileURLToPath(new URL('./baseline-server.mjs', import.meta.url));

const serverDist = new URL('../../packages/server/dist/', import.meta.url);

/** A module of the built server (`npm run build -w packages/server`), e.g. `platform/db/database.js`. */
export const importServerModule = (path) => import(new URL(path, serverDist).href);

/** A dependency as the server resolves it, so the baseline runs the very same Fastify. */
const serverRequire = createRequire(new URL('../../packages/server/package.json', import.meta.url));
export const importServerDependency = async (name) => {
  const module = await import(pathToFileURL(serverRequire.resolve(name)).href);
  return module.default ?? module;
};
