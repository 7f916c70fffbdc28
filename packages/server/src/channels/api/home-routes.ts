import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../../platform/http/openapi.js';
import { DOCS_PREFIX } from './docs-routes.js';
import { PURCHASE_PAGE_PREFIX } from '../purchase-page/purchase-page-routes.js';
import escapeHtml from 'escape-html';

export interface HomeLink {
  href: string;
  label: string;
  description: string;
}

/** What the start page points to, in order; a feature with a page of its own adds its link here. */
export const HOME_LINKS: readonly HomeLink[] = [
  {
    href: DOCS_PREFIX,
    label: 'API reference',
    description: 'Every operation, its fields and errors, with examples.',
  },
  {
    href: `${API_PREFIX}/openapi.json`,
    label: 'OpenAPI document',
    description: 'The same reference as OpenAPI 3.1, for code generators and tools.',
  },
  { href: '/healthz', label: 'Health check', description: 'Answers {"status":"ok"} while the service runs.' },
];

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1d1d1f}' +
  'code{background:#f2f2f2;padding:0 .25rem;border-radius:3px}li{margin:.5rem 0}a{color:#0b57d0}';

/** No script, nothing from elsewhere; the one inline style is allowed by its hash. */
export const HOME_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function renderHome(links: readonly HomeLink[]): string {
  const items = links
    .map(
      (link) =>
        `<li><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a>: ${escapeHtml(link.description)}</li>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Storefront</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Storefront</h1>
<p>This service answers the Storefront commerce API at <code>${escapeHtml(API_PREFIX)}</code>, with an API key in <code>Authorization: Bearer sk_test_…</code>.</p>
<p>Buyers pay on hosted purchase pages at <code>${escapeHtml(PURCHASE_PAGE_PREFIX)}/&lt;store handle&gt;/&lt;product slug&gt;</code>, no key needed; the first start prints the Demo store's page.</p>
<ul>
${items}
</ul>
</body>
</html>
`;
}

/** GET /: a small start page for whoever opens the service's address in a browser. */
export async function homeRoutes(app: FastifyInstance): Promise<void> {
  const page = renderHome(HOME_LINKS);
  app.get('/', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('Content-Security-Policy', HOME_CSP)
      .header('X-Content-Type-Options', 'nosniff')
      .send(page),
  );
}
