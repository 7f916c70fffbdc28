import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

/** Resolved from this file in src/pages or dist/pages alike: the server package's root. */
const PACKAGE_ROOT = new URL('../../', import.meta.url);

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

function load(relative: string, type: string, ext: string): Asset {
  const file = new URL(relative, PACKAGE_ROOT);
  if (!existsSync(file)) {
    throw new Error(
      `purchase page asset ${file.pathname} is missing: run \`npm run build -w packages/server\``,
    );
  }
  const body = readFileSync(file);
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const name = relative
    .split('/')
    .pop()!
    .replace(/\.\w+$/, '');
  return { path: `/assets/${name}.${hash}.${ext}`, body, type };
}

/**
 * The page's stylesheet and its compiled browser script, read once at start and served under
 * content-hashed names, so a browser may keep them for a year and a new release is a new URL.
 */
export function registerPageAssets(app: FastifyInstance, prefix: string): PageAssets {
  const css = load('assets/page.css', 'text/css; charset=utf-8', 'css');
  const js = load('dist/browser/page.js', 'text/javascript; charset=utf-8', 'js');
  for (const asset of [css, js]) {
    app.get(asset.path, { schema: { hide: true } }, (_request, reply) =>
      reply
        .headers({
          'content-type': asset.type,
          'cache-control': 'public, max-age=31536000, immutable',
          'x-content-type-options': 'nosniff',
        })
        .send(asset.body),
    );
  }
  return {
    css: prefix + css.path,
    js: prefix + js.path,
    sizes: { css: css.body.length, js: js.body.length },
  };
}
