// The dashboard's Checkouts pages against the public purchase page they preview, in the same run
// (bench/README.md, "Dashboard Checkouts"): the list (first page of `--checkouts` checkouts), a
// checkout's editor, its saved preview (GET) and an unsaved preview (the editor's POST), each as
// p50/p95 ms and as a ratio of the public page's p50 (GET /p/<handle>/<slug>, the same renderer).
//
//   npm run build -w packages/server && node bench/dashboard-checkouts.mjs [--checkouts 1000] [--postgres]
import { startDashboardBench } from './lib/dashboard-bench.mjs';
import { percentileOf } from './lib/percentile.mjs';

const ROUNDS = 200;

const bench = await startDashboardBench({ size: { name: 'checkouts', fallback: 1000 } });
const { base, store } = bench;
const CHECKOUTS = bench.size;
const ms = (n) => n.toFixed(2);

try {
  const api = await bench.apiClient(['checkouts:write', 'products:write']);
  let checkout;
  for (let i = 0; i < CHECKOUTS; i++) {
    checkout = await api('/checkouts', {
      name: `Checkout ${i}`,
      settings_json: { checkout_titulo: `Oferta ${i}`, checkout_descricao: 'Descrição '.repeat(20) },
    });
  }
  const product = await api('/products', { nome: 'Curso Bench', preco: 97, checkout_id: checkout.id });
  const publicPage = `/p/${store.handle}/${product.slug}`;

  const cookie = await bench.signInOwner();
  const editor = `/dashboard/checkouts/${checkout.id}`;
  const csrf = /name="_csrf" value="([^"]+)"/.exec((await bench.timed(editor, { cookie })).text)[1];
  const form = new globalThis.URLSearchParams({
    _csrf: csrf,
    name: 'Checkout rascunho',
    checkout_titulo: 'Título não salvo',
    checkout_garantia: 'Garantia de 7 dias',
    checkout_fundo_tipo: 'gradiente',
    checkout_fundo_cor: '#336699',
    checkout_selos_enabled: 'on',
  }).toString();

  const cases = {
    'public page (baseline)': () => bench.timed(publicPage),
    'list (first 50)': () => bench.timed('/dashboard/checkouts', { cookie }),
    editor: () => bench.timed(editor, { cookie }),
    'preview, saved (GET)': () => bench.timed(`${editor}/pre-visualizacao`, { cookie }),
    'preview, unsaved (POST)': () =>
      bench.timed(`${editor}/pre-visualizacao`, {
        method: 'POST',
        cookie,
        headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      }),
  };
  const times = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
  // Warm-up, then the cases interleaved so machine noise falls on each alike; client-measured (the
  // time `fetch` waits on localhost).
  for (let i = 0; i < 20; i++) for (const run of Object.values(cases)) await run();
  for (let i = 0; i < ROUNDS; i++) {
    for (const [name, run] of Object.entries(cases)) times[name].push((await run()).clientMs);
  }
  const baseline = percentileOf(times['public page (baseline)'], 50);
  console.log(
    `Checkouts pages, ${CHECKOUTS} checkouts, ${ROUNDS} requests each, ${bench.dbName} (ms, client-measured on localhost):`,
  );
  for (const [name, values] of Object.entries(times)) {
    const p50 = percentileOf(values, 50);
    console.log(
      `  ${name.padEnd(24)} p50 ${ms(p50).padStart(6)}  p95 ${ms(percentileOf(values, 95)).padStart(6)}  (${(p50 / baseline).toFixed(2)}x)`,
    );
  }
} finally {
  await bench.close();
}
