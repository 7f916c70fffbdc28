// Seeds a store with `count` sales for the dashboard benches: copies of one real sale (paid through the
// API, so every column is as the service writes it) with varied customers, products, statuses and
// tracking, spread over 90 days, plus the analytics daily totals those sales and refunds add up to
// (Início reads those, as the sales service keeps them). One customer name is rare and placed among
// the oldest sales: the worst case of a name search, which walks newest first.
import { randomUUID } from 'node:crypto';
import { importServerModule } from './paths.mjs';

const FIRST = ['Ana', 'Bruno', 'Carla', 'Diego', 'Elisa', 'Fábio', 'Gabriela', 'Hugo', 'Isabel', 'João'];
const LAST = ['Silva', 'Souza', 'Oliveira', 'Santos', 'Lima', 'Pereira', 'Costa', 'Rodrigues', 'Almeida'];
const SOURCES = ['facebook', 'google', 'instagram', 'email', 'tiktok'];
const DAY_MS = 86_400_000;
export const RARE_NAME = 'Zuleica Quintanilha';

/** Eleven digits that look like a CPF (the bench searches by e-mail and name only). */
const digits = (i) => String(10_000_000_000 + i * 7919).slice(-11);

/**
 * `template` is one sale row of the store; `productIds` the store's products. Returns a sample of
 * what was written (ids, an e-mail to search, the rare name) for the measurements.
 */
export async function seedDashboardSales(kysely, { template, productIds, count, now = Date.now() }) {
  const { addToDailyTotals } = await importServerModule('domain/analytics/daily-totals.js');
  const { localDate } = await importServerModule('platform/values/local-date.js');
  const totals = new Map();
  const add = (day, productId, counters) => {
    const key = `${day}|${productId}`;
    const row = totals.get(key) ?? { day, product_id: productId, add: {} };
    for (const [name, n] of Object.entries(counters)) row.add[name] = (row.add[name] ?? 0) + n;
    totals.set(key, row);
  };
  let sample;
  await kysely.transaction().execute(async (trx) => {
    for (let first = 0; first < count; first += 500) {
      const rows = [];
      for (let i = first; i < Math.min(count, first + 500); i++) {
        // Newest first: i = 0 is now, the last one 90 days ago; the rare name among the oldest.
        const createdAt = new Date(now - Math.floor((i / count) * 90 * DAY_MS) - (i % 1000));
        const rare = i === count - 7;
        const name = rare ? RARE_NAME : `${FIRST[i % FIRST.length]} ${LAST[(i * 7) % LAST.length]}`;
        const refunded = i % 20 === 0;
        const amount = 1000 + (i % 97) * 100;
        const productId = productIds[i % productIds.length];
        rows.push({
          ...template,
          id: randomUUID(),
          pix_charge_id: null,
          product_id: productId,
          amount_cents: amount,
          status: refunded ? 'refunded' : 'approved',
          refunded_at: refunded ? createdAt.toISOString() : null,
          created_at: createdAt.toISOString(),
          customer: JSON.stringify({
            name,
            email: `cliente${i}@bench.example`,
            document: digits(i),
          }),
          tracking: JSON.stringify(
            i % 3 === 0
              ? {}
              : { utm_source: SOURCES[i % SOURCES.length], utm_campaign: `campanha-${i % 12}` },
          ),
        });
        const day = localDate(createdAt, 'America/Sao_Paulo');
        add(day, productId, { sales: 1, gross_cents: amount, refunded_cents: refunded ? amount : 0 });
      }
      await trx.insertInto('sales').values(rows).execute();
      if (first === 0) sample = { newest: rows[0].id, email: 'cliente123@bench.example' };
    }
    await addToDailyTotals(
      trx,
      [...totals.values()].map((row) => ({
        store_id: template.store_id,
        livemode: template.livemode,
        ...row,
      })),
    );
  });
  return { ...sample, rareName: RARE_NAME };
}
