// The one table `npm run bench` prints: a row per scenario and database.
const COLUMNS = [
  ['scenario', (r) => r.scenario],
  ['db', (r) => r.db],
  ['req/s', (r) => r.rps],
  ['p50 ms', (r) => r.p50],
  ['p99 ms', (r) => r.p99],
  ['err/non-2xx', (r) => `${r.errors}/${r.non2xx}`],
  ['peak RSS MB', (r) => r.peakRssMb],
  ['bytes', (r) => r.responseBytes],
  ['baseline req/s', (r) => r.baselineRps],
  ['ratio', (r) => (r.ratio == null ? null : r.ratio.toFixed(2))],
  ['CPU µs/req', (r) => r.cpuUsPerRequest],
  ['base µs/req', (r) => r.baselineCpuUsPerRequest],
  ['CPU ratio', (r) => (r.cpuRatio == null ? null : r.cpuRatio.toFixed(2))],
  ['other CPU', (r) => otherCpu(r)],
  ['target', (r) => r.target],
  ['met', (r) => r.met],
];
/** The worse of the two runs (server, baseline): CPU taken by processes outside the bench. */
function otherCpu(r) {
  const values = [r.otherCpuPct, r.baselineOtherCpuPct].filter((v) => v != null);
  return values.length ? `${Math.max(...values)}%` : null;
}

const LEFT_ALIGNED = new Set(['scenario', 'db', 'target', 'met']);

const text = (value) => (value == null || value === '' ? '—' : String(value));

export function renderTable(rows) {
  const measured = rows.filter((r) => r.status === 'ok').map((r) => COLUMNS.map(([, get]) => text(get(r))));
  const widths = COLUMNS.map(([name], i) =>
    Math.max(name.length, ...measured.map((cells) => cells[i].length)),
  );
  const line = (cells) =>
    cells
      .map((v, i) => (LEFT_ALIGNED.has(COLUMNS[i][0]) ? v.padEnd(widths[i]) : v.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  const out = [line(COLUMNS.map(([name]) => name)), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const r of rows) {
    out.push(
      r.status === 'ok'
        ? line(COLUMNS.map(([, get]) => text(get(r))))
        : `${r.scenario.padEnd(widths[0])}  ${r.db.padEnd(widths[1])}  ${r.status}: ${r.reason}`,
    );
  }
  return out.join('\n');
}

/**
 * A plain left-aligned text table of `rows`: `columns` as [heading, value of a row] pairs, by default
 * every key of the first row. Missing values show as —.
 */
export function textTable(rows, columns = Object.keys(rows[0]).map((key) => [key, (r) => r[key]])) {
  const cells = rows.map((r) => columns.map(([, get]) => text(get(r))));
  const widths = columns.map(([name], i) => Math.max(name.length, ...cells.map((c) => c[i].length)));
  const line = (values) =>
    values
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [
    line(columns.map(([name]) => name)),
    line(widths.map((w) => '-'.repeat(w))),
    ...cells.map(line),
  ].join('\n');
}
