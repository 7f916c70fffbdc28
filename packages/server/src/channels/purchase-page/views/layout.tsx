import type { ComponentChildren } from 'preact';
import { PageHead } from '../../../platform/html/page-head.js';

export interface LayoutProps {
  title: string;
  nonce: string;
  /** The stylesheet, and the script (none in a preview). */
  assets: { css: string; js?: string };
  testMode: boolean;
  /** The dashboard's preview of a product page: it says so, and runs no script (it takes no order). */
  preview?: boolean;
  /** Which script part runs: the product form, the order status or the 3-D Secure page. */
  page: 'product' | 'order' | '3ds' | 'error';
  /** Page-specific CSS built only from validated values (colours); goes in the nonce'd style. */
  style?: string;
  /** An http(s) image drawn behind the page (`imagem` background). */
  backgroundImage?: string | null;
  children: ComponentChildren;
}

/** The frame of every purchase page: Portuguese, mobile first, the test banner in test mode. */
export function Layout(props: LayoutProps) {
  return (
    <html lang="pt-BR">
      <PageHead
        title={props.title}
        nonce={props.nonce}
        css={props.assets.css}
        script={props.preview ? undefined : props.assets.js}
        style={props.style}
      />
      <body data-page={props.page}>
        {props.backgroundImage ? (
          <img class="bg-image" src={props.backgroundImage} alt="" aria-hidden="true" />
        ) : null}
        {props.preview ? (
          <p class="test-banner" role="note">
            Pré-visualização: esta página não faz pedidos.
          </p>
        ) : null}
        {props.testMode ? (
          <p class="test-banner" role="note">
            Modo de teste: nenhum dinheiro real é cobrado.
          </p>
        ) : null}
        <main class="container">{props.children}</main>
      </body>
    </html>
  );
}
