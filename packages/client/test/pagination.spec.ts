import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Page, StorefrontError, ValidationError } from '../src/index.js';
import { clientFor, pixCharge } from './support/fixtures.js';
import { apiError, json, sequence, startStub, type Stub } from './support/stub-server.js';

// Three pages of two charges; the cursor names the next page, as an opaque string.
const pages: Record<string, { ids: string[]; next: string | null }> = {
  first: { ids: ['pix_6', 'pix_5'], next: 'cur_page2' },
  cur_page2: { ids: ['pix_4', 'pix_3'], next: 'cur_page3' },
  cur_page3: { ids: ['pix_2', 'pix_1'], next: null },
};

let server: Stub;

before(async () => {
  server = await startStub((request) => {
    const cursor = new URL(request.url, 'http://stub').searchParams.get('starting_after') ?? 'first';
    const page = pages[cursor];
    if (!page) return json(400, { error: { code: 'invalid_request', message: 'bad cursor' } });
    return json(200, {
      object: 'list',
      data: page.ids.map(pixCharge),
      has_more: page.next !== null,
      next_cursor: page.next,
    });
  });
});
after(() => server.close());

const urls = () => server.requests.map((request) => request.url);

describe('pagination', () => {
  it('iterates every item across three pages with for await', async () => {
    server.requests.length = 0;
    const ids: string[] = [];
    for await (const charge of clientFor(server.baseUrl).pix.list({ limit: 2, status: 'pending' })) {
      ids.push(charge.id);
    }
    assert.deepEqual(ids, ['pix_6', 'pix_5', 'pix_4', 'pix_3', 'pix_2', 'pix_1']);
    assert.deepEqual(urls(), [
      '/api/public/v1/payments/pix?limit=2&status=pending',
      '/api/public/v1/payments/pix?limit=2&status=pending&starting_after=cur_page2',
      '/api/public/v1/payments/pix?limit=2&status=pending&starting_after=cur_page3',
    ]);
  });

  it('awaits to the first page, with the wire envelope fields', async () => {
    const page = await clientFor(server.baseUrl).pix.list({ limit: 2 });
    assert.ok(page instanceof Page);
    assert.equal(page.object, 'list');
    assert.deepEqual(
      page.data.map((charge) => charge.id),
      ['pix_6', 'pix_5'],
    );
    assert.equal(page.has_more, true);
    assert.equal(page.next_cursor, 'cur_page2');
    assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(page))).sort(), [
      'data',
      'has_more',
      'next_cursor',
      'object',
    ]);
  });

  it('walks pages by hand with hasNextPage and getNextPage', async () => {
    let page = await clientFor(server.baseUrl).pix.list();
    const seen = [page.data.length];
    while (page.hasNextPage()) {
      page = await page.getNextPage();
      seen.push(page.data.length);
    }
    assert.deepEqual(seen, [2, 2, 2]);
    assert.equal(page.next_cursor, null);
    await assert.rejects(page.getNextPage(), StorefrontError);
  });

  it('iterating a page yields it and every following page', async () => {
    const first = await clientFor(server.baseUrl).pix.list();
    const second = await first.getNextPage();
    const ids: string[] = [];
    for await (const charge of second) ids.push(charge.id);
    assert.deepEqual(ids, ['pix_4', 'pix_3', 'pix_2', 'pix_1']);
  });

  it('sends nothing until the list is awaited or iterated', async () => {
    server.requests.length = 0;
    const listing = clientFor(server.baseUrl).pix.list();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(server.requests.length, 0);
    await listing;
    await listing;
    assert.equal(server.requests.length, 1, 'the first page is fetched once');
  });

  it('yields the pages it got, then rejects with the error of the page that failed', async () => {
    const broken = await startStub(
      sequence(
        json(200, { object: 'list', data: [pixCharge('pix_9')], has_more: true, next_cursor: 'cur_gone' }),
        apiError(400, 'invalid_request', 'Invalid cursor'),
      ),
    );
    const ids: string[] = [];
    try {
      await assert.rejects(async () => {
        for await (const charge of clientFor(broken.baseUrl).pix.list()) ids.push(charge.id);
      }, ValidationError);
    } finally {
      await broken.close();
    }
    assert.deepEqual(ids, ['pix_9']);
  });
});
