import { browserPixelOf, withMetaPixel } from './meta-pixel.js';
import type { FastifyReply } from 'fastify';
import { h } from 'preact';
import type { CheckoutSettings } from '../../domain/checkouts/settings.js';
import type { ProductsTable } from '../../domain/catalogue/product-object.js';
import type { StoresTable } from '../../domain/stores/stores.js';
import { PER_PERIOD } from '../../domain/subscriptions/periods.js';
import { backgroundOf, imageOrigins } from './page-data.js';
import { connectSources, httpUrl, newNonce, pageCsp, sendHtml } from '../../platform/html/page-security.js';
import { NoncedPageCache } from '../../platform/html/nonced-page-cache.js';
import { renderPage } from '../../platform/html/render.js';
import { ProductPage } from './views/product-page.js';
import type { CardAcceptance } from '../../domain/payments/card-settings/card-provider-settings.js';
import { cardScriptOf, withCardScriptCsp } from './card-scripts.js';

/** What a product page shows: the store, the checkout's look, the product and its offered bump. */
export interface ProductPageContent {
  store: Pick<StoresTable, 'name' | 'checkout_mode' | 'meta_pixel_id' | 'meta_browser_pixel'>;
  settings: CheckoutSettings;
  product: Pick<
    ProductsTable,
    | 'nome'
    | 'descricao'
    | 'garantia'
    | 'preco_cents'
    | 'imagem'
    | 'recorrencia'
    | 'order_bump_title'
    | 'order_bump_description'
  >;
  bump: Pick<ProductsTable, 'nome' | 'descricao' | 'preco_cents' | 'imagem'> | null;
  /** Whether (and through which PSP) the store takes cards in its checkout mode; absent: Pix only. */
  card?: CardAcceptance | null;
}

/** A product page's HTML is the same for every buyer but for its nonce (rendering was ~10% of a view). */
const productPages = new NoncedPageCache();

/**
 * The one renderer of a product page, for buyers at `/p/<handle>/<slug>` and for the dashboard's
 * checkout preview alike, so the preview is the real page. `urls` are where the buyer's form orders
 * and asks for totals; null makes the preview: it says so, runs no script, may be framed by this
 * origin only, and its CSP lets it send nothing (no order, no quote). Counting a page view is the
 * public route's business, never this one's.
 */
export function sendProductPage(
  reply: FastifyReply,
  content: ProductPageContent,
  assets: { css: string; js?: string },
  urls: { order: string; quote: string; installments: string; orderPages: string } | null,
): FastifyReply {
  const { store, product, settings, bump } = content;
  const acceptance = product.recorrencia === null ? (content.card ?? null) : null;
  const cardScript = cardScriptOf(acceptance);
  const background = backgroundOf(settings);
  const images = {
    logo: settings.checkout_logo_enabled ? httpUrl(settings.checkout_logo_url) : null,
    banner: settings.checkout_banner_enabled ? httpUrl(settings.checkout_banner_url) : null,
    background: background.image,
    product: httpUrl(product.imagem),
  };
  const bumpImage = bump ? httpUrl(bump.imagem) : null;
  const nonce = newNonce();
  const shown = {
    assets,
    testMode: store.checkout_mode === 'test',
    style: background.style,
    storeName: store.name,
    settings,
    images,
    product: {
      name: product.nome,
      description: product.descricao,
      guarantee: product.garantia,
      priceCents: product.preco_cents,
    },
    bump: bump && {
      name: bump.nome,
      title: product.order_bump_title ?? `Adicionar ${bump.nome}`,
      description: product.order_bump_description ?? bump.descricao,
      priceCents: bump.preco_cents,
      image: bumpImage,
    },
    recurring: product.recorrencia === null ? null : { perPeriod: PER_PERIOD[product.recorrencia] },
    urls,
    card: acceptance && {
      provider: acceptance.provider,
      publicKey: acceptance.publicKey,
      scriptSrc: cardScript?.src ?? null,
    },
  };
  // Rendered once per distinct content; each answer gets the kept page with its own nonce.
  const html = productPages.render(JSON.stringify(shown), nonce, (slot) =>
    renderPage(h(ProductPage, { ...shown, nonce: slot })),
  );
  const preview = urls === null;
  // The page's script posts the order and asks for totals (and installments): those URLs, nothing else
  // of this origin.
  const connect =
    urls === null
      ? []
      : connectSources(reply.request, [
          urls.order,
          urls.quote,
          // With cards: the installments, and an order's own "Pix instead" after a decline (its renew,
          // under the token the order's answer gave).
          ...(acceptance ? [urls.installments, `${urls.orderPages}/`] : []),
        ]);
  const baseCsp = pageCsp(nonce, imageOrigins([...Object.values(images), bumpImage]), { preview, connect });
  // The card PSP's script and frames, on this store's public product pages only (a preview runs no script).
  const csp = preview ? baseCsp : withCardScriptCsp(baseCsp, cardScript);
  if (preview) return sendHtml(reply, 200, csp, html, 'no-referrer', 'self');
  // The store's Meta pixel, if it asked for one, on the public page only: a preview loads no script.
  const page = withMetaPixel({ html, csp, nonce }, browserPixelOf(store));
  return sendHtml(reply, 200, page.csp, page.html, 'no-referrer', 'none');
}
