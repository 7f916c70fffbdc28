import { StorefrontError } from './errors.js';
import type { ListEnvelope } from '../types/shared.js';

export type PageFetcher<Item> = (cursor?: string) => Promise<Page<Item>>;

/**
 * One page of a listing (the wire envelope) that can also walk every following page:
 * `for await (const item of page)` yields this page's items, then fetches the next pages with
 * `starting_after = next_cursor` until `has_more` is false.
 */
export class Page<Item> implements ListEnvelope<Item>, AsyncIterable<Item> {
  readonly object = 'list';
  readonly data: Item[];
  readonly has_more: boolean;
  readonly next_cursor: string | null;
  // A private field keeps the fetcher out of JSON.stringify and console output.
  readonly #fetchPage: PageFetcher<Item>;

  constructor(envelope: ListEnvelope<Item>, fetchPage: PageFetcher<Item>) {
    this.data = envelope.data;
    this.has_more = envelope.has_more;
    this.next_cursor = envelope.next_cursor;
    this.#fetchPage = fetchPage;
  }

  hasNextPage(): boolean {
    return this.has_more && this.next_cursor !== null;
  }

  getNextPage(): Promise<Page<Item>> {
    if (this.next_cursor === null || !this.has_more) {
      return Promise.reject(new StorefrontError('Storefront: this is the last page'));
    }
    return this.#fetchPage(this.next_cursor);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    yield* this.data;
    let next = this.hasNextPage() ? await this.getNextPage() : null;
    while (next) {
      yield* next.data;
      next = next.hasNextPage() ? await next.getNextPage() : null;
    }
  }
}

/**
 * What list methods return: `await` it for the first Page, or `for await` it for every item.
 * The first request starts only when it is awaited or iterated, so an unused listing costs nothing
 * and cannot end as an unhandled rejection.
 */
export class PagePromise<Item> implements Promise<Page<Item>>, AsyncIterable<Item> {
  readonly [Symbol.toStringTag] = 'PagePromise';
  readonly #fetchFirst: () => Promise<Page<Item>>;
  #first: Promise<Page<Item>> | undefined;

  constructor(fetchFirst: () => Promise<Page<Item>>) {
    this.#fetchFirst = fetchFirst;
  }

  then<Fulfilled = Page<Item>, Rejected = never>(
    onFulfilled?: ((page: Page<Item>) => Fulfilled | PromiseLike<Fulfilled>) | null,
    onRejected?: ((reason: unknown) => Rejected | PromiseLike<Rejected>) | null,
  ): Promise<Fulfilled | Rejected> {
    return this.#page().then(onFulfilled, onRejected);
  }

  catch<Rejected = never>(
    onRejected?: ((reason: unknown) => Rejected | PromiseLike<Rejected>) | null,
  ): Promise<Page<Item> | Rejected> {
    return this.#page().catch(onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<Page<Item>> {
    return this.#page().finally(onFinally);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    yield* await this.#page();
  }

  #page(): Promise<Page<Item>> {
    this.#first ??= this.#fetchFirst();
    return this.#first;
  }
}
