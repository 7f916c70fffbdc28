import { formatBrl } from '../../../platform/values/money.js';
import { formatDayMonth } from '../views/format.js';
import type { DayRevenue } from './figures.js';

const WIDTH = 640;
const HEIGHT = 200;
const PAD_BOTTOM = 1;
const PAD_TOP = 8;

/**
 * Daily revenue as server-rendered SVG bars (no script, nothing loaded), described for screen readers
 * by its title and description, with the same figures in a table below.
 */
export function RevenueChart(props: { days: DayRevenue[] }) {
  const max = Math.max(1, ...props.days.map((day) => day.revenueCents));
  const slot = WIDTH / props.days.length;
  const bar = Math.max(1, slot * 0.7);
  const usable = HEIGHT - PAD_BOTTOM - PAD_TOP;
  const total = props.days.reduce((sum, day) => sum + day.revenueCents, 0);
  const best = props.days.reduce((a, b) => (b.revenueCents > a.revenueCents ? b : a), props.days[0]!);
  const first = props.days[0]!;
  const last = props.days[props.days.length - 1]!;
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-labelledby="grafico-titulo grafico-descricao"
        preserveAspectRatio="none"
        class="chart-svg"
      >
        <title id="grafico-titulo">Receita líquida por dia</title>
        <desc id="grafico-descricao">
          {`De ${formatDayMonth(first.date)} a ${formatDayMonth(last.date)}: total ${formatBrl(total)}` +
            (best.revenueCents > 0
              ? `; maior dia ${formatDayMonth(best.date)} com ${formatBrl(best.revenueCents)}.`
              : '; nenhuma venda.')}
        </desc>
        <line class="chart-axis" x1="0" y1={HEIGHT - PAD_BOTTOM} x2={WIDTH} y2={HEIGHT - PAD_BOTTOM} />
        {props.days.map((day, i) => {
          const height = (day.revenueCents / max) * usable;
          const x = i * slot + (slot - bar) / 2;
          return day.revenueCents > 0 ? (
            <rect class="chart-bar" x={x} y={HEIGHT - PAD_BOTTOM - height} width={bar} height={height}>
              <title>{`${formatDayMonth(day.date)}: ${formatBrl(day.revenueCents)}`}</title>
            </rect>
          ) : null;
        })}
      </svg>
      <p class="chart-range" aria-hidden="true">
        <span>{formatDayMonth(first.date)}</span>
        {props.days.length > 1 ? <span>{formatDayMonth(last.date)}</span> : null}
      </p>
      <details class="chart-table">
        <summary>Ver os valores em tabela</summary>
        <table>
          <caption>Receita líquida e vendas por dia</caption>
          <thead>
            <tr>
              <th scope="col">Dia</th>
              <th scope="col">Receita líquida</th>
              <th scope="col">Vendas</th>
            </tr>
          </thead>
          <tbody>
            {props.days.map((day) => (
              <tr>
                <th scope="row">{formatDayMonth(day.date)}</th>
                <td>{formatBrl(day.revenueCents)}</td>
                <td>{day.sales}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
