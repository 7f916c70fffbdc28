import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/** A page as sent: every text and attribute escaped by the renderer, no raw HTML but the nonce'd style. */
export function renderPage<P>(page: VNode<P>): string {
  return `<!doctype html>${renderToString(page as VNode)}`;
}
