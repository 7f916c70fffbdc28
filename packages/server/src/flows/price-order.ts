import type { UsableCoupon } from '../domain/coupons/coupon-holds.js';
import type { ProductsTable } from '../domain/catalogue/product-object.js';
import type { SaleCoupon, SaleItem } from '../domain/kernel/line-items.js';
import { fromCents, toCents } from '../platform/values/money.js';

export interface OrderPrice {
  items: SaleItem[];
  coupon: SaleCoupon | null;
  totalCents: number;
}

/** What an order costs: the product less the coupon (never below 0), plus the bump when taken. */
export function priceOrder(
  product: ProductsTable,
  bump: ProductsTable | null,
  coupon: UsableCoupon | null,
): OrderPrice {
  const discount = coupon?.discountCents ?? 0;
  const items: SaleItem[] = [
    {
      product_id: product.id,
      nome: product.nome,
      amount: fromCents(product.preco_cents - discount),
      kind: 'product',
    },
  ];
  if (bump) {
    items.push({
      product_id: bump.id,
      nome: bump.nome,
      amount: fromCents(bump.preco_cents),
      kind: 'order_bump',
    });
  }
  return {
    items,
    coupon: coupon ? { code: coupon.coupon.code, discount: fromCents(discount) } : null,
    totalCents: items.reduce((sum, item) => sum + toCents(item.amount), 0),
  };
}
