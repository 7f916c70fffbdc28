import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator } from 'kysely';
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrations/migrate.js';
import { migrations } from '../../src/platform/db/migrations/index.js';
import { findOrder } from '../../src/domain/orders/orders-repository.js';
import { toOrder } from '../../src/domain/orders/order-object.js';
import { toSale } from '../../src/domain/sales/sale-object.js';

type Row = Record<string, unknown>;

describe('migration 0015 on a database with orders (SQLite)', () => {
  it('a paid order gets its sale’s time as paid_at, one whose Pix was canceled becomes canceled, and old rows answer tracking {}', async () => {
    const db = openDatabase(`sqlite:${join(mkdtempSync(join(tmpdir(), 'sf-orders-')), 'old.sqlite')}`);
    try {
      const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0015'));
      const old = new Migrator({
        db: db.kysely as Kysely<unknown>,
        provider: { getMigrations: async () => before },
      });
      expect((await old.migrateToLatest()).error).toBeUndefined();
      const raw = db.kysely as unknown as Kysely<Record<'stores' | 'pix_charges' | 'sales' | 'orders', Row>>;
      const at = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;
      await raw
        .insertInto('stores')
        .values({ id: 's1', name: 'Loja', handle: 'loja', checkout_mode: 'test', created_at: at(0) })
        .execute();
      const charge = (id: string, status: string) => ({
        id,
        store_id: 's1',
        livemode: 0,
        status,
        amount_cents: 1000,
        txid: `tx${id}`,
        copy_paste: 'x',
        qr_code_base64: 'x',
        expires_at: at(30),
        created_at: at(1),
      });
      await raw
        .insertInto('pix_charges')
        .values([charge('pix_a', 'paid'), charge('pix_b', 'canceled')])
        .execute();
      await raw
        .insertInto('sales')
        .values({
          id: 'sale-a',
          store_id: 's1',
          livemode: 0,
          status: 'approved',
          amount_cents: 1000,
          payment_method: 'pix',
          pix_charge_id: 'pix_a',
          created_at: at(5),
        })
        .execute();
      const order = (id: string, status: string, chargeId: string, saleId: string | null) => ({
        id,
        store_id: 's1',
        token_hash: `hash-${id}`,
        livemode: 0,
        status,
        product_id: 'p1',
        items: '[{"product_id":"p1","nome":"Curso","amount":10,"kind":"product"}]',
        amount_cents: 1000,
        customer: '{"name":"Ana","email":"ana@example.com","document":"52998224725"}',
        pix_charge_id: chargeId,
        hold_until: at(30),
        sale_id: saleId,
        created_at: at(1),
      });
      await raw
        .insertInto('orders')
        .values([order('o-paid', 'paid', 'pix_a', 'sale-a'), order('o-canceled', 'pending', 'pix_b', null)])
        .execute();

      await migrateToLatest(db.kysely);
      const paid = toOrder((await findOrder(db.kysely, 's1', 'o-paid'))!);
      expect(paid).toMatchObject({
        status: 'paid',
        paid_at: at(5),
        tracking: {},
        recovered: false,
        recovery_email: null,
        abandoned_at: null,
      });
      expect(toOrder((await findOrder(db.kysely, 's1', 'o-canceled'))!).status).toBe('canceled');
      const sale = await db.kysely
        .selectFrom('sales')
        .selectAll()
        .where('id', '=', 'sale-a')
        .executeTakeFirstOrThrow();
      expect(toSale(sale)).toMatchObject({ tracking: {}, recovered: false });
      const store = await db.kysely.selectFrom('stores').selectAll().executeTakeFirstOrThrow();
      expect(store).toMatchObject({
        timezone: 'America/Sao_Paulo',
        recovery_email_enabled: 0,
        recovery_email_delay_minutes: 60,
        meta_pixel_id: null,
        meta_browser_pixel: 0,
      });
    } finally {
      await db.close();
    }
  });
});
