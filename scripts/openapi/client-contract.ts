/**
 * The client's types must not drift from the description. openapi-typescript turns docs/openapi.json
 * into ./openapi-types.d.ts (scripts/write-openapi.mjs, checked up to date in CI); this file only
 * type-checks (`npm run openapi:client-check`). Each assignment states one direction:
 *
 * - what the service answers must fit the client's resource type (server → client), and the client's
 *   type may declare nothing the service does not send (client → server);
 * - what the client lets a caller send must be accepted by the service's request schema, and what the
 *   service accepts must be sendable through the client.
 *
 * Plain assignments are used so that tsc names the offending field. Optional fields are mutually
 * assignable in TypeScript, so the top-level keys are compared too (`KeysMatch`): a field the service
 * accepts or sends that the client lacks, or the reverse, shows as `onlyInClient`/`onlyInServer`.
 */
import type * as Client from '../../packages/client/src/index.js';
import type { components, paths } from './openapi-types.js';

type Schemas = components['schemas'];
type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;
type Query<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } }
  ? NonNullable<Q>
  : never;
type Ok<P extends keyof paths, M extends keyof paths[P], S extends number> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer R } } };
}
  ? R
  : never;

type KeysMatch<C, S> = [Exclude<keyof C, keyof S>, Exclude<keyof S, keyof C>] extends [never, never]
  ? true
  : { onlyInClient: Exclude<keyof C, keyof S>; onlyInServer: Exclude<keyof S, keyof C> };

declare function server<T>(): T;
declare function client<T>(): T;

export function checks(): unknown[] {
  const out: unknown[] = [];
  // Resources the service answers with.
  {
    const serverToClient: Client.Checkout = server<Schemas['Checkout']>();
    const clientToServer: Schemas['Checkout'] = client<Client.Checkout>();
    const keys: KeysMatch<Client.Checkout, Schemas['Checkout']> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.Product = server<Schemas['Product']>();
    const clientToServer: Schemas['Product'] = client<Client.Product>();
    const keys: KeysMatch<Client.Product, Schemas['Product']> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.WebhookEndpoint = server<Schemas['WebhookEndpoint']>();
    const clientToServer: Schemas['WebhookEndpoint'] = client<Client.WebhookEndpoint>();
    const keys: KeysMatch<Client.WebhookEndpoint, Schemas['WebhookEndpoint']> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.WebhookEndpointWithSecret = server<Schemas['WebhookEndpointWithSecret']>();
    const clientToServer: Schemas['WebhookEndpointWithSecret'] = client<Client.WebhookEndpointWithSecret>();
    const keys: KeysMatch<Client.WebhookEndpointWithSecret, Schemas['WebhookEndpointWithSecret']> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.WebhookDelivery = server<Schemas['WebhookDelivery']>();
    const clientToServer: Schemas['WebhookDelivery'] = client<Client.WebhookDelivery>();
    const keys: KeysMatch<Client.WebhookDelivery, Schemas['WebhookDelivery']> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.WebhookTest = server<Schemas['WebhookTest']>();
    const clientToServer: Schemas['WebhookTest'] = client<Client.WebhookTest>();
    const keys: KeysMatch<Client.WebhookTest, Schemas['WebhookTest']> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.DeletedWebhookEndpoint = server<Ok<'/webhooks/{id}', 'delete', 200>>();
    const clientToServer: Ok<'/webhooks/{id}', 'delete', 200> = client<Client.DeletedWebhookEndpoint>();
    const keys: KeysMatch<Client.DeletedWebhookEndpoint, Ok<'/webhooks/{id}', 'delete', 200>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.PixCharge = server<Schemas['PixCharge']>();
    const clientToServer: Schemas['PixCharge'] = client<Client.PixCharge>();
    const keys: KeysMatch<Client.PixCharge, Schemas['PixCharge']> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.Sale = server<Schemas['Sale']>();
    const clientToServer: Schemas['Sale'] = client<Client.Sale>();
    const keys: KeysMatch<Client.Sale, Schemas['Sale']> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    // @ts-expect-error By design: the document types data.object as any object, while the client narrows it
    // by `type` (a discriminated union), so only client → server assignability can hold.
    const serverToClient: Client.Event = server<Schemas['Event']>();
    const clientToServer: Schemas['Event'] = client<Client.Event>();
    const keys: KeysMatch<Client.Event, Schemas['Event']> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.ListEnvelope<Client.Checkout> = server<Ok<'/checkouts', 'get', 200>>();
    const clientToServer: Ok<'/checkouts', 'get', 200> = client<Client.ListEnvelope<Client.Checkout>>();
    const keys: KeysMatch<Client.ListEnvelope<Client.Checkout>, Ok<'/checkouts', 'get', 200>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.Subscription = server<Schemas['Subscription']>();
    const clientToServer: Schemas['Subscription'] = client<Client.Subscription>();
    const keys: KeysMatch<Client.Subscription, Schemas['Subscription']> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.CreatedSubscription = server<Schemas['CreatedSubscription']>();
    const clientToServer: Schemas['CreatedSubscription'] = client<Client.CreatedSubscription>();
    const keys: KeysMatch<Client.CreatedSubscription, Schemas['CreatedSubscription']> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.SubscriptionCreateParams = server<Body<'/subscriptions', 'post'>>();
    const clientToServer: Body<'/subscriptions', 'post'> = client<Client.SubscriptionCreateParams>();
    const keys: KeysMatch<Client.SubscriptionCreateParams, Body<'/subscriptions', 'post'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.SubscriptionListParams = server<Query<'/subscriptions'>>();
    const clientToServer: Query<'/subscriptions'> = client<Client.SubscriptionListParams>();
    const keys: KeysMatch<Client.SubscriptionListParams, Query<'/subscriptions'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.CardPayment = server<Schemas['CardPayment']>();
    const clientToServer: Schemas['CardPayment'] = client<Client.CardPayment>();
    const keys: KeysMatch<Client.CardPayment, Schemas['CardPayment']> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.InstallmentOptions = server<Schemas['InstallmentOptions']>();
    const clientToServer: Schemas['InstallmentOptions'] = client<Client.InstallmentOptions>();
    const keys: KeysMatch<Client.InstallmentOptions, Schemas['InstallmentOptions']> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.CardPaymentCreateParams = server<Body<'/payments/card', 'post'>>();
    const clientToServer: Body<'/payments/card', 'post'> = client<Client.CardPaymentCreateParams>();
    const keys: KeysMatch<Client.CardPaymentCreateParams, Body<'/payments/card', 'post'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.CardPaymentListParams = server<Query<'/payments/card'>>();
    const clientToServer: Query<'/payments/card'> = client<Client.CardPaymentListParams>();
    const keys: KeysMatch<Client.CardPaymentListParams, Query<'/payments/card'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    type Installments = Query<'/payments/card/installments'>;
    const serverToClient: Client.InstallmentOptionsParams = server<Installments>();
    const clientToServer: Installments = client<Client.InstallmentOptionsParams>();
    const keys: KeysMatch<Client.InstallmentOptionsParams, Installments> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    type Simulate3ds = Body<'/payments/card/{id}/simulate_3ds', 'post'>;
    const serverToClient: Client.CardPaymentSimulate3dsParams = server<Simulate3ds>();
    const clientToServer: Simulate3ds = client<Client.CardPaymentSimulate3dsParams>();
    out.push(serverToClient, clientToServer);
  }
  {
    type Settlement = Body<'/payments/card/{id}/simulate_settlement', 'post'>;
    const serverToClient: Client.CardPaymentSimulateSettlementParams = server<Settlement>();
    const clientToServer: Settlement = client<Client.CardPaymentSimulateSettlementParams>();
    out.push(serverToClient, clientToServer);
  }
  // What callers send: bodies and query strings.
  {
    const serverToClient: Client.CheckoutCreateParams = server<Body<'/checkouts', 'post'>>();
    const clientToServer: Body<'/checkouts', 'post'> = client<Client.CheckoutCreateParams>();
    const keys: KeysMatch<Client.CheckoutCreateParams, Body<'/checkouts', 'post'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.ProductCreateParams = server<Body<'/products', 'post'>>();
    const clientToServer: Body<'/products', 'post'> = client<Client.ProductCreateParams>();
    const keys: KeysMatch<Client.ProductCreateParams, Body<'/products', 'post'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.ProductUpdateParams = server<Body<'/products/{id}', 'patch'>>();
    const clientToServer: Body<'/products/{id}', 'patch'> = client<Client.ProductUpdateParams>();
    const keys: KeysMatch<Client.ProductUpdateParams, Body<'/products/{id}', 'patch'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.WebhookEndpointCreateParams = server<Body<'/webhooks', 'post'>>();
    const clientToServer: Body<'/webhooks', 'post'> = client<Client.WebhookEndpointCreateParams>();
    const keys: KeysMatch<Client.WebhookEndpointCreateParams, Body<'/webhooks', 'post'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.WebhookEndpointUpdateParams = server<Body<'/webhooks/{id}', 'patch'>>();
    const clientToServer: Body<'/webhooks/{id}', 'patch'> = client<Client.WebhookEndpointUpdateParams>();
    const keys: KeysMatch<Client.WebhookEndpointUpdateParams, Body<'/webhooks/{id}', 'patch'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.AnalyticsSummary = server<Schemas['AnalyticsSummary']>();
    const clientToServer: Schemas['AnalyticsSummary'] = client<Client.AnalyticsSummary>();
    const keys: KeysMatch<Client.AnalyticsSummary, Schemas['AnalyticsSummary']> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.AnalyticsDay = server<Schemas['AnalyticsDay']>();
    const clientToServer: Schemas['AnalyticsDay'] = client<Client.AnalyticsDay>();
    const keys: KeysMatch<Client.AnalyticsDay, Schemas['AnalyticsDay']> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.AnalyticsSummaryParams = server<Query<'/analytics/summary'>>();
    const clientToServer: Query<'/analytics/summary'> = client<Client.AnalyticsSummaryParams>();
    const keys: KeysMatch<Client.AnalyticsSummaryParams, Query<'/analytics/summary'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.Coupon = server<Schemas['Coupon']>();
    const clientToServer: Schemas['Coupon'] = client<Client.Coupon>();
    const keys: KeysMatch<Client.Coupon, Schemas['Coupon']> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.CouponCreateParams = server<Body<'/coupons', 'post'>>();
    const clientToServer: Body<'/coupons', 'post'> = client<Client.CouponCreateParams>();
    const keys: KeysMatch<Client.CouponCreateParams, Body<'/coupons', 'post'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.CouponUpdateParams = server<Body<'/coupons/{id}', 'patch'>>();
    const clientToServer: Body<'/coupons/{id}', 'patch'> = client<Client.CouponUpdateParams>();
    const keys: KeysMatch<Client.CouponUpdateParams, Body<'/coupons/{id}', 'patch'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.CouponListParams = server<Query<'/coupons'>>();
    const clientToServer: Query<'/coupons'> = client<Client.CouponListParams>();
    const keys: KeysMatch<Client.CouponListParams, Query<'/coupons'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.CheckoutUpdateParams = server<Body<'/checkouts/{id}', 'patch'>>();
    const clientToServer: Body<'/checkouts/{id}', 'patch'> = client<Client.CheckoutUpdateParams>();
    const keys: KeysMatch<Client.CheckoutUpdateParams, Body<'/checkouts/{id}', 'patch'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    type Rotate = Body<'/webhooks/{id}/rotate_secret', 'post'>;
    const serverToClient: Client.WebhookEndpointRotateSecretParams = server<Rotate>();
    const clientToServer: Rotate = client<Client.WebhookEndpointRotateSecretParams>();
    const keys: KeysMatch<Client.WebhookEndpointRotateSecretParams, Rotate> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.PixChargeCreateParams = server<Body<'/payments/pix', 'post'>>();
    const clientToServer: Body<'/payments/pix', 'post'> = client<Client.PixChargeCreateParams>();
    const keys: KeysMatch<Client.PixChargeCreateParams, Body<'/payments/pix', 'post'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.CheckoutListParams = server<Query<'/checkouts'>>();
    const clientToServer: Query<'/checkouts'> = client<Client.CheckoutListParams>();
    const keys: KeysMatch<Client.CheckoutListParams, Query<'/checkouts'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.ProductListParams = server<Query<'/products'>>();
    const clientToServer: Query<'/products'> = client<Client.ProductListParams>();
    const keys: KeysMatch<Client.ProductListParams, Query<'/products'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.WebhookEndpointListParams = server<Query<'/webhooks'>>();
    const clientToServer: Query<'/webhooks'> = client<Client.WebhookEndpointListParams>();
    const keys: KeysMatch<Client.WebhookEndpointListParams, Query<'/webhooks'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.WebhookDeliveryListParams = server<Query<'/webhooks/{id}/deliveries'>>();
    const clientToServer: Query<'/webhooks/{id}/deliveries'> = client<Client.WebhookDeliveryListParams>();
    const keys: KeysMatch<Client.WebhookDeliveryListParams, Query<'/webhooks/{id}/deliveries'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.PixChargeListParams = server<Query<'/payments/pix'>>();
    const clientToServer: Query<'/payments/pix'> = client<Client.PixChargeListParams>();
    const keys: KeysMatch<Client.PixChargeListParams, Query<'/payments/pix'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.SaleListParams = server<Query<'/sales'>>();
    const clientToServer: Query<'/sales'> = client<Client.SaleListParams>();
    const keys: KeysMatch<Client.SaleListParams, Query<'/sales'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.EventListParams = server<Query<'/events'>>();
    const clientToServer: Query<'/events'> = client<Client.EventListParams>();
    const keys: KeysMatch<Client.EventListParams, Query<'/events'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.Order = server<Schemas['Order']>();
    const clientToServer: Schemas['Order'] = client<Client.Order>();
    const keys: KeysMatch<Client.Order, Schemas['Order']> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.OrderListParams = server<Query<'/orders'>>();
    const clientToServer: Query<'/orders'> = client<Client.OrderListParams>();
    const keys: KeysMatch<Client.OrderListParams, Query<'/orders'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.Store = server<Schemas['Store']>();
    const clientToServer: Schemas['Store'] = client<Client.Store>();
    const keys: KeysMatch<Client.Store, Schemas['Store']> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  {
    const serverToClient: Client.StoreUpdateParams = server<Body<'/store', 'patch'>>();
    const clientToServer: Body<'/store', 'patch'> = client<Client.StoreUpdateParams>();
    const keys: KeysMatch<Client.StoreUpdateParams, Body<'/store', 'patch'>> = true;
    out.push(serverToClient, clientToServer, keys);
  }
  // Guards against a request type collapsing to `never` or `unknown` unnoticed.
  const minimalPix: Body<'/payments/pix', 'post'> = { amount: 10 };
  const minimalProduct: Body<'/products', 'post'> = { nome: 'x', preco: 1 };
  out.push(minimalPix, minimalProduct);
  return out;
}
