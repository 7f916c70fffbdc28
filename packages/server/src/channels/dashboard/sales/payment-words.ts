import type { SalesTable } from '../../../domain/sales/sale-object.js';

/** A sale's payment method as the pages and the Excel export name it. */
export const PAYMENT_LABELS: Record<SalesTable['payment_method'], string> = {
  pix: 'Pix',
  card: 'Cartão',
  free: 'Gratuita',
};

/** The brands' own spelling, for the ids the PSPs send (Mercado Pago `master`, Pagar.me `Mastercard`…). */
const BRANDS: Record<string, string> = {
  visa: 'Visa',
  master: 'Mastercard',
  mastercard: 'Mastercard',
  amex: 'American Express',
  elo: 'Elo',
  hipercard: 'Hipercard',
  diners: 'Diners Club',
  jcb: 'JCB',
  discover: 'Discover',
  cabal: 'Cabal',
};

/** A card's brand as a person reads it; a brand not listed keeps its own words, first letter raised. */
export function brandLabel(brand: string): string {
  return BRANDS[brand.toLowerCase()] ?? brand.charAt(0).toUpperCase() + brand.slice(1);
}

export interface SalePayment {
  payment_method: SalesTable['payment_method'];
  installments: number | null;
  card_brand: string | null;
  card_last4: string | null;
}

/** How a list row names a sale's payment: `Pix`, `Gratuita`, or `Cartão Visa •••• 4242, 3x`. */
export function paymentSummary(sale: SalePayment): string {
  if (sale.payment_method !== 'card') return PAYMENT_LABELS[sale.payment_method];
  const card = [
    'Cartão',
    sale.card_brand === null ? null : brandLabel(sale.card_brand),
    sale.card_last4 === null ? null : `•••• ${sale.card_last4}`,
  ].filter((part) => part !== null);
  return sale.installments === null ? card.join(' ') : `${card.join(' ')}, ${sale.installments}x`;
}
