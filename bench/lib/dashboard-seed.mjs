// Seeds one store with `count` sales for the dashboard and analytics benches, in one transaction of a
// few statements: an INSERT … SELECT over a generated series (a recursive CTE on SQLite,
// generate_series on PostgreSQL) writes the sales, a second their card payments, then grouped INSERTs
// the analytics daily totals they add up to, as the service keeps them (bench/README.md, "Dashboard
// with 1,000,000 sales"). A million sales take about a minute on either database.
//
// The sales, newest first (n = 0 is now), evenly over the last `days` days:
// - the store's products in turn, each sale a purchase-page order of it (its items) but one in five
//   (a charge made through the API: no items);
// - 30% paid by card (brand, last four digits, 1 to 12 installments, a card payment row), one in 500
//   free (amount 0), the rest by Pix;
// - 5% refunded half an hour later, 1% of card sales charged back a day later;
// - every customer distinct: a name of ten first and nine last names (one rare name among the oldest
//   sales, the worst case of a name search, which walks newest first), an e-mail typed in mixed case
//   one time in ten (the search lower-cases both sides), an eleven-digit document;
// - two thirds with UTM tracking.
import { importServerDependency, importServerModule } from './paths.mjs';

const FIRST = ['Ana', 'Bruno', 'Carla', 'Diego', 'Elisa', 'Fábio', 'Gabriela', 'Hugo', 'Isabel', 'João'];
const LAST = ['Silva', 'Souza', 'Oliveira', 'Santos', 'Lima', 'Pereira', 'Costa', 'Rodrigues', 'Almeida'];
const SOURCES = ['facebook', 'google', 'instagram', 'email', 'tiktok'];
const BRANDS = ['visa', 'mastercard', 'elo', 'amex', 'hipercard'];
const DAY_MS = 86_400_000;
export const RARE_NAME = 'Zuleica Quintanilha';

const quote = (text) => `'${text.replaceAll("'", "''")}'`;

/**
 * The daily totals' slot of a sale's increments on PostgreSQL, where the writer's connection picks one
 * of 16: a busy store's day is spread over all of them, as here, until the node folds the days before
 * `foldedBefore` back into slot 0 (hourly), as here too.
 */
const postgresSlot = (id, day, foldedBefore) =>
  `case when ${day} < ${quote(foldedBefore)} then 0 else get_byte(decode(md5(${id}), 'hex'), 0) % 16 end`;

/** What differs between the two databases' SQL. */
const DIALECTS = {
  sqlite: {
    series: (count) =>
      `with recursive seq(n) as (select 0 union all select n + 1 from seq where n < ${count - 1})`,
    from: 'seq',
    /** ISO 8601 UTC with milliseconds, as `nowIso()` writes, of epoch milliseconds. */
    iso: (ms) => `strftime('%Y-%m-%dT%H:%M:%fZ', (${ms}) / 1000.0, 'unixepoch')`,
    hex: (bytes) => `lower(hex(randomblob(${bytes})))`,
    pick: (list, index) => `json_extract(${quote(JSON.stringify(list))}, '$[' || (${index}) || ']')`,
    digits: (n, width) => `substr('${'0'.repeat(width)}' || (${n}), -${width})`,
    least: (a, b) => `min(${a}, ${b})`,
    brl: (cents) => `cast(${cents} / 100.0 as text)`,
    /** The local date of a timestamp column; SQLite knows no zones, São Paulo keeps UTC−3 all year. */
    localDay: (column, timeZone) => {
      if (timeZone !== 'America/Sao_Paulo') throw new Error(`the SQLite seeder knows São Paulo only`);
      return `date(${column}, '-3 hours')`;
    },
    /** The daily totals' slot a sale's increments went to: SQLite writes slot 0 only. */
    slot: () => '0',
    /** What a GROUP BY adds for the slot: nothing (SQLite reads a bare 0 there as a column number). */
    bySlot: () => '',
  },
  postgres: {
    series: () => '',
    from: (count) => `generate_series(0::bigint, ${count - 1}) as seq(n)`,
    iso: (ms) =>
      `to_char(to_timestamp((${ms}) / 1000.0) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
    hex: (bytes) => `substr(md5(random()::text), 1, ${bytes * 2})`,
    pick: (list, index) => `(array[${list.map(quote).join(',')}])[(${index}) + 1]`,
    digits: (n, width) => `lpad((${n})::text, ${width}, '0')`,
    least: (a, b) => `least(${a}, ${b})`,
    brl: (cents) => `(${cents} / 100.0)::float8::text`,
    localDay: (column, timeZone) =>
      `to_char((${column})::timestamptz at time zone ${quote(timeZone)}, 'YYYY-MM-DD')`,
    slot: postgresSlot,
    bySlot: (id, day, foldedBefore) => `, ${postgresSlot(id, day, foldedBefore)}`,
  },
};

/**
 * Writes `count` sales of the store's test mode (a store without sales yet) over the last `days` days, their card payments and
 * their daily totals (`days` must leave at most one sale per millisecond, as real ones are). Needs the
 * store's products (at least one). Returns what the measurements look for: the newest sale, a card
 * sale, the e-mail (as searched: lower case) and document of a customer among the oldest sales, the
 * rare name.
 */
export async function seedSales(kysely, { storeId, count, days = 365, now = Date.now() }) {
  const { sql } = await importServerDependency('kysely');
  const { isPostgres } = await importServerModule('platform/db/sql-dialect.js');
  const d = DIALECTS[isPostgres(kysely) ? 'postgres' : 'sqlite'];
  const run = (db, text) => sql.raw(text).execute(db);
  const store = await kysely
    .selectFrom('stores')
    .select('timezone')
    .where('id', '=', storeId)
    .executeTakeFirstOrThrow();
  const products = await kysely
    .selectFrom('products')
    .select(['id', 'nome'])
    .where('store_id', '=', storeId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  if (products.length === 0) throw new Error('seedSales needs the store to have products');
  // The store's whole-day totals are summed from the product rows written here: nothing else may be in them.
  const before = await kysely
    .selectFrom('sales')
    .select('id')
    .where('store_id', '=', storeId)
    .executeTakeFirst();
  if (before) throw new Error('seedSales needs a store without sales');
  const rareN = count - 7;
  const emailN = count - 17 - ((count - 17 - 3 + 10) % 10); // n ≡ 3 (mod 10): typed in mixed case

  const uuid = `${d.hex(4)} || '-' || ${d.hex(2)} || '-4' || substr(${d.hex(2)}, 2) || '-a' || substr(${d.hex(2)}, 2) || '-' || ${d.hex(6)}`;
  const createdMs = `(${now} - (n * ${Math.round(days * DAY_MS)}) / ${count} - n % 1000)`;
  const product = (field) =>
    d.pick(
      products.map((p) => p[field]),
      `n % ${products.length}`,
    );
  const name = `case when n = ${rareN} then ${quote(RARE_NAME)} else ${d.pick(FIRST, `n % ${FIRST.length}`)} || ' ' || ${d.pick(LAST, `(n * 7) % ${LAST.length}`)} end`;
  const email = `case when n % 10 = 3 then 'Cliente' || n || '@Bench.Example' else 'cliente' || n || '@bench.example' end`;
  const card = `n % 10 in (1, 4, 8)`;
  const free = `n % 500 = 250`;
  const refunded = `n % 40 in (0, 8)`;
  const chargedBack = `n % 100 = 41`;
  const amount = `case when ${free} then 0 else 1990 + (n % 97) * 100 end`;
  const later = (ms) => d.iso(d.least(`${createdMs} + ${ms}`, now));

  await kysely.transaction().execute(async (trx) => {
    await run(
      trx,
      `${d.series(count)}
      insert into sales (id, store_id, livemode, status, amount_cents, payment_method, pix_end_to_end_id,
        product_id, customer, items, created_at, refunded_at, refund_status, tracking,
        delivery_email_status, delivery_email_attempts, delivery_email_sent_at,
        card_payment_id, installments, charged_back_at)
      select ${uuid}, ${quote(storeId)}, 0,
        case when ${chargedBack} then 'charged_back' when ${refunded} then 'refunded' else 'approved' end,
        ${amount},
        case when ${card} then 'card' when ${free} then 'free' else 'pix' end,
        case when ${card} or ${free} then null else 'E00000000' || ${d.digits('n', 23)} end,
        ${product('id')},
        '{"name":"' || ${name} || '","email":"' || ${email} || '","document":"' || ${d.digits('n * 7919', 11)} || '"}',
        case when n % 5 = 0 then null else '[{"product_id":"' || ${product('id')} || '","nome":"' || ${product('nome')} || '","amount":' || ${d.brl(amount)} || ',"kind":"product"}]' end,
        ${d.iso(createdMs)},
        case when ${refunded} then ${later(1_800_000)} end,
        case when ${refunded} then 'succeeded' end,
        case when n % 3 = 0 then '{}' else '{"utm_source":"' || ${d.pick(SOURCES, `n % ${SOURCES.length}`)} || '","utm_campaign":"campanha-' || (n % 12) || '"}' end,
        'sent', 1, ${d.iso(createdMs)},
        case when ${card} then 'card_' || ${d.hex(12)} end,
        case when ${card} then 1 + (n / 10) % 12 end,
        case when ${chargedBack} then ${later(DAY_MS)} end
      from ${typeof d.from === 'function' ? d.from(count) : d.from}`,
    );
    // Each card sale's payment: its brand and last four digits, the buyer's interest in the total.
    const seq = `(row_number() over (order by created_at desc, id desc))`;
    await run(
      trx,
      `insert into card_payments (id, store_id, livemode, status, provider, amount_cents, installments,
        installment_amount_cents, total_amount_cents, card_brand, card_last4, card_exp_month, card_exp_year,
        customer, tracking, product_id, provider_payment_id, authorization_code, sale_id, created_at,
        approved_at, refunded_at)
      select card_payment_id, store_id, livemode, case when status = 'refunded' then 'refunded' else 'approved' end,
        'mercadopago', amount_cents, installments,
        (amount_cents + amount_cents * (installments - 1) * 299 / 10000 + installments - 1) / installments,
        amount_cents + amount_cents * (installments - 1) * 299 / 10000,
        ${d.pick(BRANDS, `${seq} % ${BRANDS.length}`)}, ${d.digits(`(${seq} * 37) % 10000`, 4)},
        1 + ${seq} % 12, 2027 + ${seq} % 6,
        customer, tracking, product_id, ${d.digits(`${seq}`, 12)}, ${d.digits(`(${seq} * 7) % 1000000`, 6)},
        id, created_at, created_at, refunded_at
      from sales where store_id = ${quote(storeId)} and payment_method = 'card'`,
    );
    // The daily totals, as countSale, countRefund and the page-view counter add them: per product and
    // day, then the store's whole day. Orders ×1.4 and page views ×20 of the paid orders.
    const totals = `insert into analytics_daily (store_id, livemode, day, product_id, page_views, orders,
      paid_orders, sales, gross_cents, refunded_cents, pix_sales, pix_gross_cents, card_sales, card_gross_cents, slot)`;
    const paid = `sum(case when items is null then 0 else 1 end)`;
    const ofMethod = (method, value) =>
      `sum(case when payment_method = '${method}' then ${value} else 0 end)`;
    const day = (column) => d.localDay(column, store.timezone);
    // As the node's daily totals folding leaves them (domain/analytics/fold-slots.ts).
    const foldedBefore = new Date(now - 2 * DAY_MS).toISOString().slice(0, 10);
    await run(
      trx,
      `${totals}
      select store_id, livemode, ${day('created_at')}, product_id, ${paid} * 20, ${paid} * 14 / 10, ${paid},
        count(*), sum(amount_cents), 0, ${ofMethod('pix', 1)}, ${ofMethod('pix', 'amount_cents')},
        ${ofMethod('card', 1)}, ${ofMethod('card', 'amount_cents')}, ${d.slot('id', day('created_at'), foldedBefore)}
      from sales where store_id = ${quote(storeId)}
      group by store_id, livemode, ${day('created_at')}, product_id${d.bySlot('id', day('created_at'), foldedBefore)}`,
    );
    for (const column of ['refunded_at', 'charged_back_at'])
      await run(
        trx,
        `${totals}
        select store_id, livemode, ${day(column)}, product_id, 0, 0, 0, 0, 0, sum(amount_cents), 0, 0, 0, 0,
          ${d.slot('id', day(column), foldedBefore)}
        from sales where store_id = ${quote(storeId)} and ${column} is not null
        group by store_id, livemode, ${day(column)}, product_id${d.bySlot('id', day(column), foldedBefore)}
        on conflict (store_id, livemode, day, product_id, slot)
        do update set refunded_cents = analytics_daily.refunded_cents + excluded.refunded_cents`,
      );
    const counters = `page_views, orders, paid_orders, sales, gross_cents, refunded_cents, pix_sales,
      pix_gross_cents, card_sales, card_gross_cents`;
    await run(
      trx,
      `${totals}
      select store_id, livemode, day, '*', ${counters
        .split(',')
        .map((c) => `sum(${c.trim()})`)
        .join(', ')}, slot
      from analytics_daily where store_id = ${quote(storeId)} group by store_id, livemode, day, slot`,
    );
  });

  const listed = (select) =>
    select
      .select('id')
      .where('store_id', '=', storeId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
  const newest = await listed(kysely.selectFrom('sales'));
  const cardSale = await listed(kysely.selectFrom('sales').where('payment_method', '=', 'card'));
  return {
    newest: newest.id,
    cardSale: cardSale.id,
    email: `cliente${emailN}@bench.example`,
    document: String(emailN * 7919).padStart(11, '0'),
    rareName: RARE_NAME,
  };
}
