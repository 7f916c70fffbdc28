import { Type } from '@sinclair/typebox';
import { formatBrl } from '../../../platform/values/money.js';
import { DEFAULT_TIMEZONE } from '../../../platform/values/local-date.js';
import { findStore } from '../../../domain/stores/stores.js';
import { SalesTable } from '../sales/sales-table.js';
import { defineScreen, guard, member, sendPage } from '../shell/page.js';
import { formatCount, formatPercent } from '../views/format.js';
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

function HomePage(props: {
  period: Period;
  figures: Figures;
  latest: LatestSale[];
  livemode: boolean;
  timeZone: string;
}) {
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
          <Figure label="Visualizações" value={formatCount(figures.pageViews)} />
          <Figure
            label="Conversão"
            value={figures.conversion === null ? '—' : formatPercent(figures.conversion)}
          />
        </dl>
        <h3 id="meios-titulo">Vendas por meio de pagamento</h3>
        <dl class="figures" aria-labelledby="meios-titulo">
          <Figure
            label="Pix"
            value={formatCount(figures.byMethod.pix.sales)}
            note={formatBrl(figures.byMethod.pix.grossCents)}
          />
          <Figure
            label="Cartão"
            value={formatCount(figures.byMethod.card.sales)}
            note={formatBrl(figures.byMethod.card.grossCents)}
          />
        </dl>
        <p class="hint">
          Dias no fuso da loja ({props.timeZone}). Conversão: pedidos pagos por visualização da página de
          compra. A receita líquida desconta cada reembolso e contestação no dia em que foi feito. Por meio de
          pagamento: o valor bruto das vendas, no cartão sem os juros do parcelamento.
        </p>
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

/**
 * Início: the period's revenue, sales, views and conversion and the daily chart (the analytics
 * summary of the store's mode, days in its time zone), and the latest sales of that mode.
 */
export const homeScreen = defineScreen('home', async (app, services) => {
  const { db } = app;
  app.get('/', guard('viewer', { querystring: Query }), async (request, reply) => {
    const session = member(request);
    const period = request.query.periodo ?? '30';
    const store = await findStore(db, session.storeId);
    const livemode = store?.checkout_mode === 'live';
    const timeZone = store?.timezone ?? DEFAULT_TIMEZONE;
    const [figures, latest] = await Promise.all([
      periodFigures(db, { storeId: session.storeId, livemode, timeZone }, period),
      latestSales(db, session.storeId, livemode),
    ]);
    return sendPage(request, reply, services, {
      title: 'Início',
      nav: 'home',
      body: (
        <HomePage period={period} figures={figures} latest={latest} livemode={livemode} timeZone={timeZone} />
      ),
    });
  });
});
