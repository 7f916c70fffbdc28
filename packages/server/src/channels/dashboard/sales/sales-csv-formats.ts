import { parseTracking } from '../../../domain/kernel/tracking.js';
import { toCents } from '../../../platform/values/money.js';
import type { Customer } from '../../../domain/kernel/customer.js';
import type { SaleCoupon, SaleItem } from '../../../domain/kernel/line-items.js';
import { SALE_STATUS_LABELS, formatDateTime } from '../views/format.js';
import type { ListedSale } from './sales-filter.js';
import { PAYMENT_LABELS, brandLabel } from './payment-words.js';

/*
 * The two exports of Vendas. "CSV padrão" keeps the documented conventions a program reads (English
 * column names, `,`, amount `1234.56`, instants in UTC). "Excel (pt-BR)" is what a Brazilian
 * spreadsheet opens as columns: UTF-8 with a BOM (else Excel reads it as Windows-1252), `;` (Excel's
 * separator in Brazil), decimal comma, dates in the store's zone, statuses in Portuguese, the order
 * bumps and the WhatsApp. Both go through the same `csvField`, safe read with either separator.
 */
export interface CsvFormat {
  /** Written before the header: the UTF-8 BOM, or nothing. */
  prefix: string;
  separator: ',' | ';';
  header: readonly string[];
  /** One sale's fields, unescaped; `timeZone` is the store's. */
  fields(sale: ListedSale, timeZone: string): (string | null | undefined)[];
}

/** What a sale's JSON columns hold. */
function readSale(sale: ListedSale) {
  return {
    customer: sale.customer === null ? null : (JSON.parse(sale.customer) as Customer),
    coupon: sale.coupon === null ? null : (JSON.parse(sale.coupon) as SaleCoupon),
    items: sale.items === null ? [] : (JSON.parse(sale.items) as SaleItem[]),
    tracking: parseTracking(sale.tracking),
  };
}

/** Cents as `1234.56`, or with `,` as the decimal mark; no thousands separator either way. */
const decimalAmount = (cents: number, mark: '.' | ',') =>
  `${Math.trunc(cents / 100)}${mark}${String(cents % 100).padStart(2, '0')}`;

/** A bare CPF or CNPJ with its usual mask: also keeps Excel from reading it as a number. */
function maskedDocument(bare: string | undefined): string | undefined {
  if (bare === undefined) return undefined;
  if (/^[0-9]{11}$/.test(bare)) return bare.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4');
  return bare.replace(/^(\w{2})(\w{3})(\w{3})(\w{4})(\w{2})$/, '$1.$2.$3/$4-$5');
}

export const STANDARD_CSV: CsvFormat = {
  prefix: '',
  separator: ',',
  header: [
    'id',
    'created_at',
    'status',
    'amount',
    'payment_method',
    'product',
    'customer_name',
    'customer_email',
    'customer_document',
    'coupon',
    'utm_source',
    'utm_campaign',
    // A card sale's (API 1.3.0), empty for the others; last, so programs reading the older columns by
    // position read them as before.
    'card_brand',
    'card_last4',
    'installments',
  ],
  fields(sale) {
    const { customer, coupon, tracking } = readSale(sale);
    return [
      sale.id,
      sale.created_at,
      sale.status,
      decimalAmount(sale.amount_cents, '.'),
      sale.payment_method,
      sale.product_name,
      customer?.name,
      customer?.email,
      customer?.document,
      coupon?.code,
      tracking.utm_source,
      tracking.utm_campaign,
      sale.card_brand,
      sale.card_last4,
      sale.installments?.toString(),
    ];
  },
};

export const EXCEL_CSV: CsvFormat = {
  prefix: '\uFEFF',
  separator: ';',
  header: [
    'Venda',
    'Data',
    'Status',
    'Valor (R$)',
    'Pagamento',
    'Produto',
    'Order bumps',
    'Cliente',
    'E-mail',
    'WhatsApp',
    'CPF/CNPJ',
    'Cupom',
    'utm_source',
    'utm_campaign',
    'Bandeira',
    'Final do cartão',
    'Parcelas',
  ],
  fields(sale, timeZone) {
    const { customer, coupon, items, tracking } = readSale(sale);
    const bumps = items
      .filter((item) => item.kind === 'order_bump')
      .map((item) => `${item.nome} (${decimalAmount(toCents(item.amount), ',')})`);
    return [
      sale.id,
      // `28/11/2026 14:30`: without the comma Intl puts after the date, Excel reads it as a date and time.
      formatDateTime(sale.created_at, timeZone).replace(', ', ' '),
      SALE_STATUS_LABELS[sale.status],
      decimalAmount(sale.amount_cents, ','),
      PAYMENT_LABELS[sale.payment_method],
      sale.product_name,
      bumps.join(' | '),
      customer?.name,
      customer?.email,
      customer?.whatsapp,
      maskedDocument(customer?.document),
      coupon?.code,
      tracking.utm_source,
      tracking.utm_campaign,
      sale.card_brand === null ? null : brandLabel(sale.card_brand),
      // `•••• 0042`: as text, so a spreadsheet keeps the leading zeros.
      sale.card_last4 === null ? null : `•••• ${sale.card_last4}`,
      sale.installments?.toString(),
    ];
  },
};
