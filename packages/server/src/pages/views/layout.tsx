import type { ComponentChildren } from 'preact';
import { PageHead } from './page-head.js';

export interface LayoutProps {
  title: string;
  nonce: string;
  assets: { css: string; js: string };
  testMode: boolean;
  /** Which script part runs: the product form or the order status. */
  page: 'product' | 'order' | 'error';
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
        script={props.assets.js}
        style={props.style}
      />
      <body data-page={props.page}>
        {props.backgroundImage ? (
          <img class="bg-image" src={props.backgroundImage} alt="" aria-hidden="true" />
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
