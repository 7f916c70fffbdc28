/** Where a purchase-page order stands. Coupon holds count the unpaid ones, so the kernel keeps it. */
export type OrderStatus = 'pending' | 'paid' | 'abandoned' | 'canceled';

/** Orders not yet settled: they can still be paid (an abandoned one through a renewed Pix). */
export const UNPAID: OrderStatus[] = ['pending', 'abandoned'];
