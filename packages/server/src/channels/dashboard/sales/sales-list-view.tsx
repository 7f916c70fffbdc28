import { DateTime } from '../views/components.js';
import type { Customer } from '../../../domain/kernel/customer.js';
import { SalesTable } from './sales-table.js';
import { PAYMENT_LABELS } from './payment-words.js';
import type { ListedSale, SalesQuery } from './sales-filter.js';

/** The filters as a query string (without the page cursor), for the CSV link and the next page. */
export function filterQuery(query: SalesQuery, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const name of ['status', 'metodo', 'de', 'ate', 'produto', 'q'] as const) {
    const value = query[name];
    if (value) params.set(name, value);
  }
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

const customerName = (sale: ListedSale) =>
  sale.customer === null ? null : ((JSON.parse(sale.customer) as Customer).name ?? null);

function Filters(props: { query: SalesQuery; products: { id: string; nome: string }[] }) {
  const { query } = props;
  return (
    <form method="get" action="/dashboard/vendas" class="filters" role="search" aria-label="Filtrar vendas">
      <div class="field">
        <label for="f-status">Status</label>
        <select id="f-status" name="status">
          <option value="">Todas</option>
          <option value="approved" selected={query.status === 'approved'}>
            Aprovadas
          </option>
          <option value="refunded" selected={query.status === 'refunded'}>
            Reembolsadas
          </option>
          <option value="charged_back" selected={query.status === 'charged_back'}>
            Contestadas
          </option>
        </select>
      </div>
      <div class="field">
        <label for="f-metodo">Pagamento</label>
        <select id="f-metodo" name="metodo">
          <option value="">Todos</option>
          {(['pix', 'card', 'free'] as const).map((method) => (
            <option value={method} selected={query.metodo === method}>
              {PAYMENT_LABELS[method]}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="f-de">De</label>
        <input id="f-de" name="de" type="date" value={query.de ?? ''} />
      </div>
      <div class="field">
        <label for="f-ate">Até</label>
        <input id="f-ate" name="ate" type="date" value={query.ate ?? ''} />
      </div>
      <div class="field">
        <label for="f-produto">Produto</label>
        <select id="f-produto" name="produto">
          <option value="">Todos</option>
          {props.products.map((product) => (
            <option value={product.id} selected={query.produto === product.id}>
              {product.nome}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="f-q">Buscar</label>
        <p class="hint" id="f-q-hint">
          Nome, e-mail ou CPF/CNPJ do cliente.
        </p>
        <input
          id="f-q"
          name="q"
          type="search"
          maxLength={200}
          value={query.q ?? ''}
          aria-describedby="f-q-hint"
        />
      </div>
      <button type="submit" class="button">
        Filtrar
      </button>
    </form>
  );
}

export function SalesListPage(props: {
  query: SalesQuery;
  products: { id: string; nome: string }[];
  sales: ListedSale[];
  /** The last sale of this page when there is another page after it. */
  nextAfter: string | null;
  /** A name search that stopped at its window: the date of the oldest sale it read. */
  searchedUpTo: string | null;
  livemode: boolean;
}) {
  const { query, sales } = props;
  return (
    <>
      <Filters query={query} products={props.products} />
      {props.livemode ? null : (
        <p class="mode-note" role="note">
          A loja está em modo de teste: estas são as vendas de teste.
        </p>
      )}
      <p>
        <a href={`/dashboard/vendas-excel.csv${filterQuery(query)}`} download>
          Exportar para Excel
        </a>{' '}
        (pt-BR: separado por ponto e vírgula, vírgula decimal) ·{' '}
        <a href={`/dashboard/vendas.csv${filterQuery(query)}`} download>
          Exportar CSV padrão
        </a>{' '}
        (para outros programas)
      </p>
      <section class="panel" aria-labelledby="vendas-titulo">
        <h2 id="vendas-titulo">{query.antes ? 'Vendas (continuação)' : 'Vendas'}</h2>
        {props.searchedUpTo ? (
          <p role="note">
            A busca por nome olhou as vendas até <DateTime iso={props.searchedUpTo} />. Para procurar nas mais
            antigas, siga para a próxima página.
          </p>
        ) : null}
        {sales.length === 0 ? (
          <p>Nenhuma venda com estes filtros.</p>
        ) : (
          <SalesTable
            label="Vendas"
            sales={sales.map((sale) => ({ ...sale, customer_name: customerName(sale) }))}
          />
        )}
        {query.antes || props.nextAfter ? (
          <nav class="pager" aria-label="Páginas">
            {query.antes ? <a href={`/dashboard/vendas${filterQuery(query)}`}>Primeira página</a> : null}
            {props.nextAfter ? (
              <a href={`/dashboard/vendas${filterQuery(query, { antes: props.nextAfter })}`}>
                Próxima página
              </a>
            ) : null}
          </nav>
        ) : null}
      </section>
    </>
  );
}
