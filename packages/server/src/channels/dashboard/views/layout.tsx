import type { ComponentChildren } from 'preact';
import { PageHead } from '../../../platform/html/page-head.js';
import { PostForm } from './components.js';

/** The dashboard's sections, in the order of its navigation. */
export const NAV_ITEMS = [
  { key: 'home', label: 'Início', href: '/dashboard' },
  { key: 'sales', label: 'Vendas', href: '/dashboard/vendas' },
  { key: 'orders', label: 'Pedidos', href: '/dashboard/pedidos' },
  { key: 'subscriptions', label: 'Assinaturas', href: '/dashboard/assinaturas' },
  { key: 'products', label: 'Produtos', href: '/dashboard/produtos' },
  { key: 'checkouts', label: 'Checkouts', href: '/dashboard/checkouts' },
  { key: 'coupons', label: 'Cupons', href: '/dashboard/cupons' },
  { key: 'developers', label: 'Desenvolvedores', href: '/dashboard/desenvolvedores' },
  { key: 'settings', label: 'Configurações', href: '/dashboard/configuracoes' },
] as const;

export type NavKey = (typeof NAV_ITEMS)[number]['key'];

export interface ShellProps {
  title: string;
  nonce: string;
  css: string;
  /** The dashboard's script of every page (served from this origin). */
  dashboardScript: string;
  /** A page's own script (served from this origin), if it has one. */
  script?: string | undefined;
  children: ComponentChildren;
}

/** The document around every dashboard page, signed in or not. */
export function Shell(props: ShellProps) {
  return (
    <html lang="pt-BR">
      <PageHead title={`${props.title} · Painel`} nonce={props.nonce} css={props.css} script={props.script} />
      <body>
        {props.children}
        <script type="module" src={props.dashboardScript} nonce={props.nonce} />
      </body>
    </html>
  );
}

export interface LayoutProps extends ShellProps {
  nav: NavKey | null;
  email: string;
  storeId: string;
  storeName: string;
  /** Every store of the person; a select "Loja" appears when there are several. */
  stores: ReadonlyArray<{ store_id: string; store_name: string }>;
}

/** A signed-in page: the store bar, the navigation "Painel", the page's heading and content. */
export function Layout(props: LayoutProps) {
  return (
    <Shell
      title={props.title}
      nonce={props.nonce}
      css={props.css}
      dashboardScript={props.dashboardScript}
      script={props.script}
    >
      <a class="skip-link" href="#conteudo">
        Pular para o conteúdo
      </a>
      <header class="topbar">
        <div class="topbar-store">
          <span class="brand">Storefront</span>
          {props.stores.length > 1 ? (
            <PostForm action="/dashboard/loja" class="store-switch">
              <label for="loja">Loja</label>
              <select id="loja" name="store_id">
                {props.stores.map((store) => (
                  <option value={store.store_id} selected={store.store_id === props.storeId}>
                    {store.store_name}
                  </option>
                ))}
              </select>
              <button type="submit" class="button button-small">
                Trocar
              </button>
            </PostForm>
          ) : (
            <span class="store-name">{props.storeName}</span>
          )}
        </div>
        <div class="topbar-user">
          <span class="user-email">{props.email}</span>
          <PostForm action="/dashboard/logout">
            <button type="submit" class="button button-small button-quiet">
              Sair
            </button>
          </PostForm>
        </div>
      </header>
      <div class="frame">
        <nav class="sidenav" aria-label="Painel">
          <ul>
            {NAV_ITEMS.map((item) => (
              <li>
                <a href={item.href} {...(item.key === props.nav ? { 'aria-current': 'page' } : {})}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="conteudo" class="content" tabIndex={-1}>
          <h1>{props.title}</h1>
          {props.children}
        </main>
      </div>
    </Shell>
  );
}

/** A page without the navigation: login, invite, the TOTP step, errors before signing in. */
export function BarePage(props: ShellProps) {
  return (
    <Shell {...props}>
      <main id="conteudo" class="bare">
        <p class="brand bare-brand">Storefront</p>
        <div class="card">
          <h1>{props.title}</h1>
          {props.children}
        </div>
      </main>
    </Shell>
  );
}
