import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';
import { reusedListQuery } from '../platform/db/reused-query.js';
import type { Customer } from '../domain/kernel/customer.js';
import type { SalesTable } from '../domain/sales/sale-object.js';
import type { SaleItem } from '../domain/kernel/line-items.js';
import type { DeliveryEmailInput, DeliveryItem } from '../domain/email/template.js';
import { formatBrl } from '../platform/values/money.js';

/**
 * A subscription's words where the product has none of its own: its first payment says the
 * subscription is active and what was authorised; each later cycle gets a receipt instead of the
 * product's delivery e-mail (sent once, on the first payment). The access link stays in view.
 */
const SUBSCRIPTION_EMAIL = {
  first: {
    subject: 'Assinatura ativa: {{produto}}',
    body: 'Olá, {{nome}}!\n\nSua assinatura de {{produto}} em {{loja}} está ativa: recebemos o pagamento de {{valor}}. As próximas cobranças serão feitas pelo Pix Automático, como você autorizou no seu banco, e você pode cancelar quando quiser pelo próprio banco.',
  },
  renewal: {
    subject: 'Assinatura renovada: {{produto}}',
    body: 'Olá, {{nome}}!\n\nRecebemos o pagamento de {{valor}} da sua assinatura de {{produto}} em {{loja}}, pelo Pix Automático. Seu acesso continua ativo.',
  },
};
const ACCESS_LINE = '\n\nAcesse {{produto}}: {{link_acesso}}';

/** The subject and body templates of a sale's e-mail: the product's own, or the subscription's words. */
function templatesOf(
  row: { cycle: number | null; delivery_email_subject: string | null; delivery_email_body: string | null },
  hasLink: boolean,
): { subject: string | null; body: string | null } {
  if (row.cycle === null) return { subject: row.delivery_email_subject, body: row.delivery_email_body };
  const words = row.cycle > 1 ? SUBSCRIPTION_EMAIL.renewal : SUBSCRIPTION_EMAIL.first;
  const body = words.body + (hasLink ? ACCESS_LINE : '');
  if (row.cycle > 1) return { subject: words.subject, body };
  return { subject: row.delivery_email_subject ?? words.subject, body: row.delivery_email_body ?? body };
}

/** How a card sale's e-mail names its payment: `Cartão de crédito, 3x de R$ 33,33`, or `à vista`. */
export function cardPaymentWords(installments: number, installmentCents: number): string {
  return installments === 1
    ? 'Cartão de crédito, à vista'
    : `Cartão de crédito, ${installments}x de ${formatBrl(installmentCents)}`;
}

/** What a sale with no product is called in its e-mail: the charge's description, or this. */
const UNNAMED_PURCHASE = 'sua compra';

export interface DeliveryEmailSource {
  sale: Pick<SalesTable, 'id' | 'status' | 'customer'>;
  input: DeliveryEmailInput;
}

/**
 * A sale's delivery e-mail as it is to be sent: read at send time, so an access link the merchant
 * corrects before a retry or a resend is the one that goes out. One query for the sale, its store and
 * its product. The items are listed main product first: a purchase-page sale's own `items` (the
 * product and any order bump, each with its product's current access link), else the one product
 * the sale names (`product_id`), else the description of its Pix charge or card payment.
 */
export async function loadDeliveryEmail(
  db: Kysely<Database>,
  saleId: string,
): Promise<DeliveryEmailSource | undefined> {
  const row = await db
    .selectFrom('sales')
    .innerJoin('stores', 'stores.id', 'sales.store_id')
    .leftJoin('products', (join) =>
      join.onRef('products.id', '=', 'sales.product_id').onRef('products.store_id', '=', 'sales.store_id'),
    )
    .leftJoin('card_payments', (join) =>
      join
        .onRef('card_payments.id', '=', 'sales.card_payment_id')
        .onRef('card_payments.store_id', '=', 'sales.store_id'),
    )
    .select([
      'sales.id',
      'sales.status',
      'sales.customer',
      'sales.amount_cents',
      'sales.store_id',
      'sales.pix_charge_id',
      'sales.items',
      'sales.cycle',
      'stores.name as store_name',
      'products.nome',
      'products.link_acesso',
      'products.delivery_email_subject',
      'products.delivery_email_body',
      'card_payments.installments as card_installments',
      'card_payments.installment_amount_cents',
      'card_payments.total_amount_cents',
      'card_payments.description as card_description',
    ])
    .where('sales.id', '=', saleId)
    .executeTakeFirst();
  if (!row) return undefined;
  const items: DeliveryItem[] =
    row.items !== null && row.items !== '[]'
      ? await currentItems(db, row.store_id, JSON.parse(row.items) as SaleItem[])
      : row.nome === null
        ? [
            {
              nome: row.card_description ?? (await chargeDescription(db, row.store_id, row.pix_charge_id)),
              linkAcesso: null,
            },
          ]
        : [{ nome: row.nome, linkAcesso: row.link_acesso }];
  const customer = row.customer === null ? null : (JSON.parse(row.customer) as Customer);
  // A card sale tells the buyer what they pay, interest included, and in how many installments.
  const card =
    row.card_installments === null || row.installment_amount_cents === null || row.total_amount_cents === null
      ? null
      : {
          amountCents: row.total_amount_cents,
          payment: cardPaymentWords(row.card_installments, row.installment_amount_cents),
        };
  return {
    sale: { id: row.id, status: row.status, customer: row.customer },
    input: {
      storeName: row.store_name,
      customerName: customer?.name ?? null,
      amountCents: card?.amountCents ?? row.amount_cents,
      payment: card?.payment ?? null,
      items,
      ...templatesOf(row, items[0]?.linkAcesso != null),
    },
  };
}

/** Products' names and access links by id (an order's few: its product and its bump). */
const selectProducts = reusedListQuery(
  'current items',
  (db: Kysely<Database>, storeIds: readonly string[], ids: readonly string[]) =>
    db
      .selectFrom('products')
      .select(['id', 'nome', 'link_acesso'])
      .where('store_id', 'in', storeIds)
      .where('id', 'in', ids),
);

/** Each item of an order with its product's name and access link as they are now, in the sale's order. */
export async function currentItems(
  db: Kysely<Database>,
  storeId: string,
  items: SaleItem[],
): Promise<DeliveryItem[]> {
  const { rows: products } = await selectProducts(
    db,
    [storeId],
    items.map((item) => item.product_id),
  );
  const byId = new Map(products.map((product) => [product.id, product]));
  return items.map((item) => {
    const product = byId.get(item.product_id);
    return { nome: product?.nome ?? item.nome, linkAcesso: product?.link_acesso ?? null };
  });
}

async function chargeDescription(
  db: Kysely<Database>,
  storeId: string,
  chargeId: string | null,
): Promise<string> {
  if (chargeId === null) return UNNAMED_PURCHASE;
  const charge = await db
    .selectFrom('pix_charges')
    .select('description')
    .where('store_id', '=', storeId)
    .where('id', '=', chargeId)
    .executeTakeFirst();
  return charge?.description ?? UNNAMED_PURCHASE;
}
