import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';

/*
 * What an order or a sale is made of: its items and the coupon taken off the main product. Orders,
 * sales and the delivery e-mail all speak of them, so they live in the kernel.
 */

export const SaleItem = Type.Object({
  product_id: Type.String({ format: 'uuid' }),
  nome: Type.String(),
  amount: Type.Number({ description: 'BRL paid for this item (the main product after any coupon).' }),
  kind: Type.Union([Type.Literal('product'), Type.Literal('order_bump')]),
});
export type SaleItem = Static<typeof SaleItem>;

export const SaleCoupon = Type.Object({
  code: Type.String(),
  discount: Type.Number({ description: 'BRL taken off the main product.' }),
});
export type SaleCoupon = Static<typeof SaleCoupon>;
