import { Type } from '@sinclair/typebox';
import { formatBrl } from '../../../common/money.js';
import { findStore } from '../../../stores/stores.js';
import { SalesTable } from '../vendas/sales-table.js';
import { definePages, guard, member, sendPage } from '../../page.js';
import { formatCount, formatPercent } from '../../views/format.js';
import { latestSales, PERIOD_LABELS, PERIODS, periodFigures } from './figures.js';
import type { Figures, LatestSale, Period } from './figures.js';
import { RevenueChart } from './revenue-chart.js';

const Query = Type.Object({
  periodo: Type.Optional(Type.Union(PERIODS.map((period) => Type.Literal(period)))),
});

function Figure(props: { label: string; value: string; note?: string }) {
  return (
    <div class="figure">
      <dt>{props.label}</dt>
      <dd>
        {props.value}
        {props.note ? <span class="figure-note">{props.note}</span> : null}
      </dd>
    </div>
  );
}

function Inicio(props: { period: Period; figures: Figures; latest: LatestSale[]; livemode: boolean }) {
  const { figures } = props;
  return (
    <>
      <form method="get" action="/dashboard" class="inline-form">
        <label for="periodo">Período</label>
        <select id="periodo" name="periodo">
          {PERIODS.map((period) => (
            <option value={period} selected={period === props.period}>
              {PERIOD_LABELS[period]}
            </option>
          ))}
        </select>
        <button type="submit" class="button button-small">
          Ver
        </button>
      </form>
      {props.livemode ? null : (
        <p class="mode-note" role="note">
          A loja está em modo de teste: os números são das vendas de teste.
        </p>
      )}
      <section class="panel" aria-labelledby="resumo-titulo">
        <h2 id="resumo-titulo">{PERIOD_LABELS[props.period]}</h2>
        <dl class="figures">
          <Figure label="Receita líquida" value={formatBrl(figures.revenueCents)} />
          <Figure label="Vendas" value={formatCount(figures.sales)} />
          <Figure
            label="Visualizações"
            value={figures.pageViews === null ? '—' : formatCount(figures.pageViews)}
          />
          <Figure
            label="Conversão"
            value={figures.conversion === null ? '—' : formatPercent(figures.conversion)}
          />
        </dl>
        <RevenueChart days={figures.days} />
      </section>
      <section class="panel" aria-labelledby="ultimas-titulo">
        <h2 id="ultimas-titulo">Últimas vendas</h2>
        {props.latest.length === 0 ? (
          <p>Nenhuma venda ainda.</p>
        ) : (
          <SalesTable label="Últimas vendas" sales={props.latest} />
        )}
      </section>
    </>
  );
}

/** Início: the period's revenue, sales, views and conversion, the daily chart, the latest sales. */
export const inicioPages = definePages('inicio', async (app, services) => {
  const { db } = app;
  app.get('/', guard('viewer', { querystring: Query }), async (request, reply) => {
    const session = member(request);
    const period = request.query.periodo ?? '30';
    const store = await findStore(db, session.storeId);
    const livemode = store?.checkout_mode === 'live';
    const [figures, latest] = await Promise.all([
      periodFigures(db, session.storeId, livemode, period),
      latestSales(db, session.storeId, livemode),
    ]);
    return sendPage(request, reply, services, {
      title: 'Início',
      nav: 'inicio',
      body: <Inicio period={period} figures={figures} latest={latest} livemode={livemode} />,
    });
  });
});
