import type { FastifyInstance } from 'fastify';
import { load, registerHashedAsset } from './page-assets.js';

const ICON = 'assets/favicon.svg';

/** Every page's icon, named by its content's hash (the route below serves that same name). */
export const FAVICON_URL = load(ICON, 'image/svg+xml', 'svg').path;

/**
 * The icon of the dashboard and the purchase pages (an SVG from this origin, which the pages' CSP
 * `img-src 'self'` allows, kept a year by browsers), and `/favicon.ico`, which browsers ask for by
 * themselves, redirecting to it rather than answering 404.
 */
export async function faviconRoutes(app: FastifyInstance): Promise<void> {
  registerHashedAsset(app, '', ICON, 'svg', { public: true });
  app.get('/favicon.ico', { config: { public: true }, schema: { hide: true } }, (_request, reply) =>
    reply.header('cache-control', 'public, max-age=86400').redirect(FAVICON_URL, 301),
  );
}
