// The purchase page's own figures: its weight (HTML, CSS, JS bytes of the product and order pages)
// and the time from pressing "Simular pagamento" to the confirmation shown in a real browser
// (Debian's Chromium through playwright-core), without a reload.
//
//   npm run build -w packages/server && node bench/purchase-page.mjs [rounds]
//
// The service runs in process on a fresh SQLite file and listens on 127.0.0.1; each round is one
// order placed over HTTP, its page opened, the button pressed, the confirmation awaited.
/* global document, performance, MutationObserver */ // inside page.evaluate: the browser's globals
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { request } from './lib/http.mjs';
import { placePageOrder } from './lib/page-order.mjs';
import { percentile } from './lib/percentile.mjs';
import { importServerModule as load } from './lib/paths.mjs';

const rounds = Number(process.argv[2] ?? 20);
const { buildApp } = await load('channels/server/app.js');
const { loadConfig } = await load('platform/config/config.js');
const { openDatabase } = await load('platform/db/database.js');
const { migrateToLatest } = await load('platform/db/migrations/migrate.js');
const { ensureDemoStore } = await load('flows/demo-store.js');

const dir = mkdtempSync(join(tmpdir(), 'sf-page-bench-'));
const url = `sqlite:${join(dir, 'page.sqlite')}`;
const db = openDatabase(url);
await migrateToLatest(db.kysely);
const config = loadConfig({
  DATABASE_URL: url,
  STOREFRONT_SECRET: 'bench-secret-bench-secret-bench-secret',
  STOREFRONT_ORDER_RATE_LIMIT: '100000',
});
const app = await buildApp({ config, db: db.kysely, logger: false });
await app.listen({ port: 0, host: '127.0.0.1' });
const origin = `http://127.0.0.1:${app.server.address().port}`;
const demo = await ensureDemoStore(db.kysely);

const bytes = async (path) => (await request(origin + path)).bytes;
async function weight(path) {
  const { text: html, bytes: htmlBytes } = await request(origin + path);
  const css = /href="(\/p\/assets\/[^"]+\.css)"/.exec(html)[1];
  const js = /src="(\/p\/assets\/[^"]+\.js)"/.exec(html)[1];
  const sizes = { html: htmlBytes, css: await bytes(css), js: await bytes(js) };
  return { ...sizes, total: sizes.html + sizes.css + sizes.js };
}

const order = () => placePageOrder(origin, demo.pagePath);

const productWeight = await weight(demo.pagePath);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
const times = [];
const sorted = () => [...times].sort((a, b) => a - b);
let orderWeight;
try {
  const page = await browser.newPage({ viewport: { width: 360, height: 800 } });
  for (let i = 0; i < rounds; i++) {
    const path = await order();
    orderWeight ??= await weight(path);
    await page.goto(origin + path);
    await page.waitForFunction(() => document.querySelector('#countdown')?.textContent !== '--:--');
    // Measured inside the page: from the click to the confirmation becoming visible.
    const ms = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const paid = document.getElementById('paid');
          const started = performance.now();
          new MutationObserver(() => {
            if (!paid.hidden) resolve(performance.now() - started);
          }).observe(paid, { attributes: true });
          document.getElementById('simulate').click();
        }),
    );
    times.push(ms);
  }
} finally {
  await browser.close();
  await app.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}

console.log(
  JSON.stringify(
    {
      rounds,
      simulate_to_confirmation_ms: {
        p50: Math.round(percentile(sorted(), 50)),
        p90: Math.round(percentile(sorted(), 90)),
        max: Math.round(Math.max(...times)),
      },
      order_page_bytes: orderWeight,
      product_page_bytes: productWeight,
    },
    null,
    2,
  ),
);
