import { randomBytes } from 'node:crypto';

/**
 * Where a kept page's nonce goes until an answer fills in its own: random for each process, so no
 * merchant text can hold it by design, and letters, digits, `-` and `_` only, which the renderer
 * writes into an attribute as they are.
 */
const NONCE_SLOT = `nonce${randomBytes(18).toString('base64url')}`;

/** Pages kept per cache: a few hundred products' pages, a few MB at most. */
const MAX_PAGES = 256;

/**
 * Pages rendered once for each distinct content and kept with a stand-in for the nonce, which each
 * answer replaces with its own fresh one. The key is the whole content the page is rendered from, so a
 * kept page is exactly the page a render would give; a change to the store, the checkout or the
 * product is a new key. The least recently used page goes first.
 */
export class NoncedPageCache {
  private readonly pages = new Map<string, string>();

  render(content: string, nonce: string, build: (nonce: string) => string): string {
    let page = this.pages.get(content);
    if (page === undefined) {
      page = build(NONCE_SLOT);
      if (this.pages.size >= MAX_PAGES) this.pages.delete(this.pages.keys().next().value!);
    } else {
      this.pages.delete(content); // to the end: the most recently used
    }
    this.pages.set(content, page);
    return page.replaceAll(NONCE_SLOT, nonce);
  }
}
