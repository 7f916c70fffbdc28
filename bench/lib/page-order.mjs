// An order placed on a purchase page over HTTP, as the page's script places it.
import { requestJson } from './http.mjs';

/** Places an order on the product page at `pagePath` (a valid buyer, no bump); returns its `order_url`. */
export async function placePageOrder(origin, pagePath) {
  const { order_url } = await requestJson(`${origin}${pagePath}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({
      name: 'Maria da Silva',
      email: 'maria@example.com',
      document: '52998224725',
      bump: false,
    }),
  });
  return order_url;
}
