import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { renderHome } from '../../src/channels/api/home-routes.js';
import { describeEachDatabase } from '../support/test-api.js';

describeEachDatabase('GET / (start page)', (api) => {
  it('answers a small HTML page pointing to the reference, without a key, under a strict CSP', async () => {
    const res = await api.request('GET', '//');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<a href="/docs">API reference</a>');
    expect(res.text).toContain('<a href="/api/public/v1/openapi.json">OpenAPI document</a>');
    expect(res.text).toContain('<code>/p/&lt;store handle&gt;/&lt;product slug&gt;</code>');
    expect(res.text).not.toMatch(/<script|https?:\/\//);

    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    // The page's only inline style is the one the policy allows by hash.
    const style = /<style>([^<]*)<\/style>/.exec(res.text)![1]!;
    const hash = createHash('sha256').update(style).digest('base64');
    expect(csp).toContain(`style-src 'sha256-${hash}'`);
    expect(res.text.match(/<style/g)).toHaveLength(1);

    expect((await api.request('GET', '//docs')).status).toBe(200);
  });
});

describe('renderHome', () => {
  it('escapes what it is given, so a link added later cannot inject markup', () => {
    const html = renderHome([{ href: '/p/"x"', label: '<b>Loja</b>', description: 'R$ 1 & "2"' }]);
    expect(html).toContain(
      '<a href="/p/&quot;x&quot;">&lt;b&gt;Loja&lt;/b&gt;</a>: R$ 1 &amp; &quot;2&quot;',
    );
  });
});
