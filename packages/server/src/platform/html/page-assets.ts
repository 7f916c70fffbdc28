import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { FastifyContextConfig, FastifyInstance } from 'fastify';

/** Resolved from this file in src/platform/html or dist/platform/html alike: the server package's root. */
const PACKAGE_ROOT = new URL('../../../', import.meta.url);

interface Asset {
  /** Under the pages' prefix (`/p`), where this plugin is registered. */
  path: string;
  body: Buffer;
  type: string;
}

export interface PageAssets {
  /** URL of the stylesheet and of the script, each named by its content's hash. */
  css: string;
  js: string;
  /** Bytes of each, for the page-weight figures. */
  sizes: { css: number; js: number };
}

export function load(relative: string, type: string, ext: string): Asset {
  const file = new URL(relative, PACKAGE_ROOT);
  if (!existsSync(file)) {
    throw new Error(`page asset ${file.pathname} is missing: run \`npm run build -w packages/server\``);
  }
  const body = readFileSync(file);
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const name = relative
    .split('/')
    .pop()!
    .replace(/\.\w+$/, '');
  return { path: `/assets/${name}.${hash}.${ext}`, body, type };
}

const ASSET_TYPES = {
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  svg: 'image/svg+xml',
};

/**
 * Serves one file of the server package (relative to its root) under `<prefix>/assets/`, named by
 * its content's hash, so a browser may keep it for a year and a new release is a new URL. Returns
 * its URL and size.
 */
export function registerHashedAsset(
  app: FastifyInstance,
  prefix: string,
  relative: string,
  ext: keyof typeof ASSET_TYPES,
  routeConfig: FastifyContextConfig = {},
): { url: string; size: number } {
  const asset = load(relative, ASSET_TYPES[ext], ext);
  app.get(asset.path, { schema: { hide: true }, config: routeConfig }, (_request, reply) =>
    reply
      .headers({
        'content-type': asset.type,
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
      })
      .send(asset.body),
  );
  return { url: prefix + asset.path, size: asset.body.length };
}

/** The purchase page's stylesheet and its compiled browser script, read once at start. */
export function registerPageAssets(app: FastifyInstance, prefix: string): PageAssets {
  const css = registerHashedAsset(app, prefix, 'assets/page.css', 'css');
  const js = registerHashedAsset(app, prefix, 'dist/browser/page.js', 'js');
  return { css: css.url, js: js.url, sizes: { css: css.size, js: js.size } };
}
