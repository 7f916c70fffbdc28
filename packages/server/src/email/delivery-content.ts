import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Customer } from '../pix/customer.js';
import type { SalesTable } from '../sales/sale-object.js';
import type { DeliveryEmailInput, DeliveryItem } from './template.js';

/** What a sale with no product is called in its e-mail: the charge's description, or this. */
const UNNAMED_PURCHASE = 'sua compra';

interface ItemWithTemplate extends DeliveryItem {
  subject: string | null;
  body: string | null;
}

/**
 * The items a sale delivers, main product first: read at send time, so an access link the merchant
 * corrects before a retry or a resend is the one that goes out. Today a sale names at most one
 * product (`product_id`); a sale with several items (an order bump) maps each of them here.
 */
async function deliveryItems(db: Kysely<Database>, sale: SalesTable): Promise<ItemWithTemplate[]> {
  if (sale.product_id !== null) {
    const product = await db
      .selectFrom('products')
      .select(['nome', 'link_acesso', 'delivery_email_subject', 'delivery_email_body'])
      .where('store_id', '=', sale.store_id)
      .where('id', '=', sale.product_id)
      .executeTakeFirst();
    if (product) {
      return [
        {
          nome: product.nome,
          linkAcesso: product.link_acesso,
          subject: product.delivery_email_subject,
          body: product.delivery_email_body,
        },
      ];
    }
  }
  const charge =
    sale.pix_charge_id === null
      ? undefined
      : await db
          .selectFrom('pix_charges')
          .select('description')
          .where('store_id', '=', sale.store_id)
          .where('id', '=', sale.pix_charge_id)
          .executeTakeFirst();
  return [{ nome: charge?.description ?? UNNAMED_PURCHASE, linkAcesso: null, subject: null, body: null }];
}

/** Everything the template needs for one sale's delivery e-mail. */
export async function deliveryEmailInput(
  db: Kysely<Database>,
  sale: SalesTable,
): Promise<DeliveryEmailInput> {
  const [store, items] = await Promise.all([
    db.selectFrom('stores').select('name').where('id', '=', sale.store_id).executeTakeFirstOrThrow(),
    deliveryItems(db, sale),
  ]);
  const customer = sale.customer === null ? null : (JSON.parse(sale.customer) as Customer);
  return {
    storeName: store.name,
    customerName: customer?.name ?? null,
    amountCents: sale.amount_cents,
    items: items.map(({ nome, linkAcesso }) => ({ nome, linkAcesso })),
    subject: items[0]!.subject,
    body: items[0]!.body,
  };
}
