import { randomInt, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import { Agent, request } from 'undici';
import { testPki } from './test-pki.js';

/**
 * A fake Pagar.me speaking its Core API v5 over HTTPS (a server certificate of `testPki()`'s CA),
 * for tests of the card adapter and of everything built on it.
 *
 * - Under `/core/v5`, HTTP Basic with the secret key (`sk_test_…` or `sk_…`) and an empty password,
 *   401 otherwise: `POST /orders` (one credit-card payment by `card_token`), `GET /orders/{id}`,
 *   `DELETE /charges/{id}` (a refund, all or part). Bodies are checked as Pagar.me does, and a bad
 *   one is answered 422 `{message: "The request is invalid.", errors: {field: [messages]}}`.
 * - `Idempotency-Key` on POST and DELETE: the same key answers the first answer again, so a retried
 *   request never charges (or refunds) twice.
 * - `POST /tokens?appId=<public key>` as Pagar.me's page script calls it: card data in, a
 *   single-use `token_…` valid for 60 s out, the outcome chosen as Pagar.me's simulator does (a CVV
 *   starting with 6 is declined; 4000000000000028 declined; 4000000000000036 stays processing).
 * - Outcomes by token: `issueToken(outcome)` makes one directly (approved, declined with any
 *   acquirer return code, refused by the antifraud, processing until `settle()`); a token the fake
 *   never issued, or one already used, fails at the gateway, as Pagar.me's do. A buyer whose
 *   document is 11111111111 is refused by the antifraud, as in Pagar.me's simulator.
 * - Control: `chargeback()`, `holdRefunds` + `settleRefund()`, `failNext()` (500s, or the work done
 *   and the answer never sent), `requireBillingAddress`, `webhook()` + `postWebhook()`, and
 *   `requests` (everything received).
 */

export type FakeCardOutcome =
  | 'approved'
  /** The order stays `pending` and its charge `processing` until `settle()`. */
  | 'processing'
  /** Pagar.me's antifraud refuses it before the issuer sees it. */
  | 'antifraud'
  /** The issuer declines with this acquirer (ABECS) return code: `51`, `N7`, `05`… */
  | { declined: string };

export interface FakeCard {
  brand: string;
  firstSixDigits: string;
  lastFourDigits: string;
  holderName: string;
  expMonth: number;
  expYear: number;
}

export interface PagarmeRequest {
  method: string;
  /** Path and query, e.g. `/core/v5/orders`. */
  path: string;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  body: unknown;
}

export interface FakePagarmeOptions {
  /** Default `sk_test_` and 16 random characters. */
  secretKey?: string;
  publicKey?: string;
}

export interface FakeTransaction {
  id: string;
  transaction_type: 'credit_card';
  gateway_id: string;
  amount: number;
  status: string;
  success: boolean;
  installments: number;
  statement_descriptor: string | null;
  acquirer_name: string;
  acquirer_tid: string;
  acquirer_nsu: string;
  acquirer_auth_code: string | null;
  acquirer_message: string;
  acquirer_return_code: string | null;
  operation_type: 'auth_and_capture';
  card: {
    id: string;
    first_six_digits: string;
    last_four_digits: string;
    brand: string;
    holder_name: string;
    exp_month: number;
    exp_year: number;
    status: 'active';
    type: 'credit';
  };
  gateway_response: { code: string; errors: { message: string }[] };
  antifraud_response: {
    status?: string;
    return_code?: string;
    return_message?: string;
    provider_name?: string;
  };
  created_at: string;
  updated_at: string;
}

export interface FakeCharge {
  id: string;
  code: string;
  gateway_id: string;
  amount: number;
  paid_amount?: number;
  canceled_amount?: number;
  status: 'pending' | 'processing' | 'paid' | 'failed' | 'canceled' | 'chargedback';
  currency: 'BRL';
  payment_method: 'credit_card';
  paid_at?: string;
  canceled_at?: string;
  created_at: string;
  updated_at: string;
  last_transaction: FakeTransaction;
}

export interface FakeOrder {
  id: string;
  code: string;
  amount: number;
  currency: 'BRL';
  closed: true;
  items: Array<{
    id: string;
    type: 'product';
    description: string;
    amount: number;
    quantity: number;
    code?: string;
    status: 'active';
  }>;
  customer: Record<string, unknown> & { id: string; name: string; email: string; document: string };
  status: 'pending' | 'paid' | 'failed' | 'canceled';
  created_at: string;
  updated_at: string;
  closed_at: string;
  charges: FakeCharge[];
}

export interface PagarmeWebhook {
  id: string;
  account: { id: string; name: string };
  type: string;
  created_at: string;
  data: unknown;
}

export interface FakePagarme {
  /** `https://127.0.0.1:<port>/core/v5`. */
  baseUrl: string;
  /** `127.0.0.1:<port>`, what STOREFRONT_PSP_ALLOWED_HOSTS names to let the adapter reach it. */
  host: string;
  secretKey: string;
  publicKey: string;
  /** The CA that signed the fake's server certificate. */
  caPem: string;
  requests: PagarmeRequest[];
  orders: Map<string, FakeOrder>;
  /** A single-use card token that ends in `outcome` (default approved). */
  issueToken(outcome?: FakeCardOutcome, card?: Partial<FakeCard>): string;
  /** A `processing` order's issuer decides: paid, or failed (return code 05). */
  settle(orderId: string, result: 'paid' | 'failed'): void;
  /** The cardholder disputed a paid charge: it turns `chargedback`. */
  chargeback(chargeId: string): void;
  /** While true, a refund is accepted but stays `waiting_cancellation` until `settleRefund()`. */
  holdRefunds: boolean;
  settleRefund(chargeId: string, result: 'refunded' | 'failed'): void;
  /** While true, an order with no address at all (customer nor card) is refused, as antifraud accounts do. */
  requireBillingAddress: boolean;
  /**
   * The next `count` API calls answer 500 (`after`: once the work is done, a lost answer), or with
   * `timeout` do the work and never answer.
   */
  failNext(count?: number, mode?: '500' | 'timeout', options?: { after?: boolean }): void;
  /** A webhook body as Pagar.me sends it: the order for `order.*`, its charge for `charge.*`. */
  webhook(type: string, orderId: string): PagarmeWebhook;
  /** POSTs a webhook body as JSON; answers the receiver's status (`ca` to trust an HTTPS receiver). */
  postWebhook(url: string, body: unknown, options?: { ca?: string }): Promise<number>;
  close(): Promise<void>;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const alnum = (n: number) => Array.from({ length: n }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');
const pagarmeId = (prefix: string) => `${prefix}_${alnum(16)}`;
const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

const TOKEN_TTL_MS = 60_000;
const DEFAULT_CARD: FakeCard = {
  brand: 'Visa',
  firstSixDigits: '400000',
  lastFourDigits: '0010',
  holderName: 'TONY STARK',
  expMonth: 12,
  expYear: new Date().getFullYear() + 3,
};
/** Pagar.me's simulator: this buyer document is always refused by the antifraud. */
const ANTIFRAUD_DOCUMENT = '11111111111';

const ACQUIRER_MESSAGES: Record<string, string> = {
  '00': 'Transação aprovada com sucesso',
  '05': 'Transação não autorizada',
  '51': 'Saldo insuficiente',
  '54': 'Cartão vencido',
  '14': 'Cartão inválido',
  '57': 'Transação não permitida para o cartão',
  '82': 'Código de segurança inválido',
  N7: 'Código de segurança inválido',
};

class Invalid {
  constructor(readonly errors: Record<string, string[]>) {}
}

class Answer {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const isInt = (v: unknown, min = 1, max = Number.MAX_SAFE_INTEGER): v is number =>
  Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
const isText = (v: unknown, max = 256): v is string =>
  typeof v === 'string' && v.trim() !== '' && v.length <= max;

function luhn(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let d = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

function brandOf(number: string): string {
  if (number.startsWith('4')) return 'Visa';
  if (/^5[1-5]/.test(number) || /^2[2-7]/.test(number)) return 'Mastercard';
  if (/^3[47]/.test(number)) return 'Amex';
  return 'Elo';
}

/** The POST /orders body's problems, keyed as Pagar.me keys them (`order.customer.name`). */
function orderErrors(body: Record<string, unknown>, requireAddress: boolean): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  const customer = body.customer as Record<string, unknown> | undefined;
  if (customer === undefined || customer === null || typeof customer !== 'object') {
    add('order.customer', 'The customer field is required.');
  } else {
    if (!isText(customer.name, 64)) add('order.customer.name', 'The name field is required.');
    if (!isText(customer.email, 64) || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(customer.email as string)) {
      add('order.customer.email', 'The email field is not a valid e-mail address.');
    }
    if (customer.type !== 'individual' && customer.type !== 'company') {
      add('order.customer.type', "The type field must be 'individual' or 'company'.");
    }
    const docLength = customer.type === 'company' ? 14 : 11;
    if (typeof customer.document !== 'string' || !new RegExp(`^\\d{${docLength}}$`).test(customer.document)) {
      add('order.customer.document', 'The document field is invalid.');
    }
    const phones = customer.phones as Record<string, Record<string, unknown>> | undefined;
    for (const [kind, phone] of Object.entries(phones ?? {})) {
      if (kind !== 'mobile_phone' && kind !== 'home_phone')
        add(`order.customer.phones.${kind}`, 'Unknown phone.');
      else if (
        !/^\d{1,3}$/.test(String(phone?.country_code)) ||
        !/^\d{2}$/.test(String(phone?.area_code)) ||
        !/^\d{8,9}$/.test(String(phone?.number))
      ) {
        add(`order.customer.phones.${kind}`, 'The phone must have country_code, area_code and number.');
      }
    }
  }
  const items = body.items;
  if (!Array.isArray(items) || items.length === 0) add('order.items', 'The items field is required.');
  else
    items.forEach((item: Record<string, unknown>, i) => {
      if (!isInt(item?.amount))
        add(`order.items[${i}].amount`, 'The amount field must be a positive integer.');
      if (!isText(item?.description))
        add(`order.items[${i}].description`, 'The description field is required.');
      if (!isInt(item?.quantity))
        add(`order.items[${i}].quantity`, 'The quantity field must be a positive integer.');
    });
  const payments = body.payments;
  if (!Array.isArray(payments) || payments.length !== 1) {
    add('order.payments', 'This fake takes exactly one payment.');
    return errors;
  }
  const payment = payments[0] as Record<string, unknown>;
  if (payment.payment_method !== 'credit_card')
    add('order.payments[0].payment_method', 'Only credit_card here.');
  if (!isInt(payment.amount)) add('order.payments[0].amount', 'The amount field must be a positive integer.');
  const card = payment.credit_card as Record<string, unknown> | undefined;
  if (!card || typeof card !== 'object') {
    add('order.payments[0].credit_card', 'The credit_card field is required.');
    return errors;
  }
  if (card.installments !== undefined && !isInt(card.installments, 1, 12)) {
    add('order.payments[0].credit_card.installments', 'The installments field must be between 1 and 12.');
  }
  const descriptor = card.statement_descriptor;
  if (
    descriptor !== undefined &&
    (typeof descriptor !== 'string' || !/^[A-Za-z0-9 ]{1,13}$/.test(descriptor))
  ) {
    add(
      'order.payments[0].credit_card.statement_descriptor',
      'The statement_descriptor must have at most 13 letters, digits or spaces.',
    );
  }
  if (typeof card.card_token !== 'string' || card.card_token === '') {
    add('order.payments[0].credit_card.card_token', 'The card_token field is required.');
  }
  const billing = (card.card as Record<string, unknown> | undefined)?.billing_address as
    Record<string, unknown> | undefined;
  if (billing !== undefined) {
    for (const field of ['line_1', 'zip_code', 'city', 'state', 'country']) {
      if (!isText(billing[field])) {
        add(`order.payments[0].credit_card.card.billing_address.${field}`, `The ${field} field is required.`);
      }
    }
  } else if (requireAddress && (customer as Record<string, unknown> | undefined)?.address === undefined) {
    add('order.payments[0].credit_card.card.billing_address', 'The billing_address field is required.');
  }
  return errors;
}

export async function startFakePagarme(options: FakePagarmeOptions = {}): Promise<FakePagarme> {
  const pki = testPki();
  const secretKey = options.secretKey ?? `sk_test_${alnum(16)}`;
  if (!/^sk_(test_)?[A-Za-z0-9]+$/.test(secretKey))
    throw new Error(`not a Pagar.me secret key: ${secretKey}`);
  const publicKey = options.publicKey ?? secretKey.replace(/^sk_/, 'pk_');
  const requests: PagarmeRequest[] = [];
  const orders = new Map<string, FakeOrder>();
  const chargeIndex = new Map<string, FakeOrder>();
  const tokens = new Map<
    string,
    { outcome: FakeCardOutcome; card: FakeCard; expiresAt: number; used: boolean }
  >();
  const idempotent = new Map<string, Answer>();
  const hanging = new Set<ServerResponse>();
  let failures: { count: number; mode: '500' | 'timeout'; after: boolean } | null = null;

  function chargeOf(chargeId: string): { order: FakeOrder; charge: FakeCharge } {
    const order = chargeIndex.get(chargeId);
    const charge = order?.charges.find((c) => c.id === chargeId);
    if (!order || !charge) throw new Answer(404, { message: 'Charge not found.' });
    return { order, charge };
  }

  /** Moves a charge's latest transaction to a new state, as Pagar.me does on each operation. */
  function transact(charge: FakeCharge, change: Partial<FakeTransaction>): void {
    charge.last_transaction = {
      ...charge.last_transaction,
      id: pagarmeId('tran'),
      ...change,
      created_at: now(),
      updated_at: now(),
    };
    charge.updated_at = now();
  }

  function pay(order: FakeOrder, charge: FakeCharge): void {
    charge.status = 'paid';
    charge.paid_amount = charge.amount;
    charge.paid_at = now();
    order.status = 'paid';
    order.updated_at = now();
    transact(charge, {
      status: 'captured',
      success: true,
      acquirer_return_code: '00',
      acquirer_message: ACQUIRER_MESSAGES['00']!,
      acquirer_auth_code: digits(6),
    });
  }

  function decline(order: FakeOrder, charge: FakeCharge, code: string): void {
    charge.status = 'failed';
    order.status = 'failed';
    order.updated_at = now();
    transact(charge, {
      status: 'not_authorized',
      success: false,
      acquirer_return_code: code,
      acquirer_message: ACQUIRER_MESSAGES[code] ?? 'Transação não autorizada',
      acquirer_auth_code: null,
    });
  }

  function createOrder(body: Record<string, unknown>): Answer {
    const errors = orderErrors(body, fake.requireBillingAddress);
    if (Object.keys(errors).length > 0) throw new Invalid(errors);
    const customerIn = body.customer as Record<string, unknown>;
    const payment = (body.payments as Record<string, unknown>[])[0]!;
    const creditCard = payment.credit_card as Record<string, unknown>;
    const amount = payment.amount as number;
    const token = tokens.get(creditCard.card_token as string);
    const usable = token !== undefined && !token.used && token.expiresAt > Date.now();
    if (token) token.used = true;
    const card = token?.card ?? DEFAULT_CARD;
    const created = now();
    const customer = {
      id: pagarmeId('cus'),
      name: customerIn.name as string,
      email: customerIn.email as string,
      document: customerIn.document as string,
      document_type: (customerIn.type === 'company' ? 'cnpj' : 'cpf') as string,
      type: customerIn.type,
      delinquent: false,
      phones: customerIn.phones ?? {},
      created_at: created,
      updated_at: created,
    };
    const gatewayId = digits(10);
    const charge: FakeCharge = {
      id: pagarmeId('ch'),
      code: body.code as string,
      gateway_id: gatewayId,
      amount,
      status: 'pending',
      currency: 'BRL',
      payment_method: 'credit_card',
      created_at: created,
      updated_at: created,
      last_transaction: {
        id: pagarmeId('tran'),
        transaction_type: 'credit_card',
        gateway_id: gatewayId,
        amount,
        status: 'processing',
        success: false,
        installments: (creditCard.installments as number | undefined) ?? 1,
        statement_descriptor: (creditCard.statement_descriptor as string | undefined) ?? null,
        acquirer_name: 'simulator',
        acquirer_tid: gatewayId,
        acquirer_nsu: gatewayId,
        acquirer_auth_code: null,
        acquirer_message: '',
        acquirer_return_code: null,
        operation_type: 'auth_and_capture',
        card: {
          id: pagarmeId('card'),
          first_six_digits: card.firstSixDigits,
          last_four_digits: card.lastFourDigits,
          brand: card.brand,
          holder_name: card.holderName,
          exp_month: card.expMonth,
          exp_year: card.expYear,
          status: 'active',
          type: 'credit',
        },
        gateway_response: { code: '200', errors: [] },
        antifraud_response: {},
        created_at: created,
        updated_at: created,
      },
    };
    const order: FakeOrder = {
      id: pagarmeId('or'),
      code: body.code as string,
      amount,
      currency: 'BRL',
      closed: true,
      items: (body.items as Record<string, unknown>[]).map((item) => ({
        id: pagarmeId('oi'),
        type: 'product',
        description: item.description as string,
        amount: item.amount as number,
        quantity: item.quantity as number,
        ...(typeof item.code === 'string' && { code: item.code }),
        status: 'active',
      })),
      customer,
      status: 'pending',
      created_at: created,
      updated_at: created,
      closed_at: created,
      charges: [charge],
    };
    orders.set(order.id, order);
    chargeIndex.set(charge.id, order);

    if (!usable) {
      charge.status = 'failed';
      order.status = 'failed';
      transact(charge, {
        status: 'failed',
        gateway_response: {
          code: '400',
          errors: [{ message: 'card_token: the token is invalid, expired or used.' }],
        },
      });
    } else if (token.outcome === 'antifraud' || customer.document === ANTIFRAUD_DOCUMENT) {
      charge.status = 'failed';
      order.status = 'failed';
      transact(charge, {
        status: 'failed',
        antifraud_response: {
          status: 'reproved',
          return_code: '0001',
          return_message: 'Transação reprovada pelo antifraude',
          provider_name: 'pagarme',
        },
      });
    } else if (token.outcome === 'approved') {
      pay(order, charge);
    } else if (token.outcome === 'processing') {
      charge.status = 'processing';
    } else {
      decline(order, charge, token.outcome.declined);
    }
    return new Answer(200, order);
  }

  function refund(chargeId: string, body: Record<string, unknown> | undefined): Answer {
    const { order, charge } = chargeOf(chargeId);
    if (charge.status !== 'paid' || charge.last_transaction.status === 'waiting_cancellation') {
      throw new Answer(412, { message: `The charge can not be canceled: its status is ${charge.status}.` });
    }
    const available = charge.amount - (charge.canceled_amount ?? 0);
    const amount = body?.amount ?? available;
    if (!isInt(amount, 1, available))
      throw new Invalid({ amount: [`The amount must be between 1 and ${available}.`] });
    if (fake.holdRefunds) {
      transact(charge, { status: 'waiting_cancellation', amount });
      return new Answer(200, charge);
    }
    finishRefund(order, charge, amount);
    return new Answer(200, charge);
  }

  function finishRefund(order: FakeOrder, charge: FakeCharge, amount: number): void {
    charge.canceled_amount = (charge.canceled_amount ?? 0) + amount;
    const whole = charge.canceled_amount >= charge.amount;
    if (whole) {
      charge.status = 'canceled';
      charge.canceled_at = now();
      order.status = 'canceled';
      order.updated_at = now();
    }
    transact(charge, { status: whole ? 'refunded' : 'partial_refunded', amount });
  }

  function issueCardToken(url: URL, body: Record<string, unknown> | undefined): Answer {
    if (url.searchParams.get('appId') !== publicKey) {
      throw new Answer(401, { message: 'Authorization has been denied for this request.' });
    }
    const card = (body?.card ?? {}) as Record<string, unknown>;
    const number = String(card.number ?? '');
    const errors: Record<string, string[]> = {};
    if (!/^\d{13,19}$/.test(number) || !luhn(number))
      errors['request.card.number'] = ['The number is invalid.'];
    if (!isText(card.holder_name))
      errors['request.card.holder_name'] = ['The holder_name field is required.'];
    if (!isInt(card.exp_month, 1, 12)) errors['request.card.exp_month'] = ['The exp_month is invalid.'];
    const year = Number(card.exp_year) < 100 ? 2000 + Number(card.exp_year) : Number(card.exp_year);
    if (!isInt(year, new Date().getFullYear())) errors['request.card.exp_year'] = ['The card is expired.'];
    if (!/^\d{3,4}$/.test(String(card.cvv ?? ''))) errors['request.card.cvv'] = ['The cvv is invalid.'];
    if (Object.keys(errors).length > 0) throw new Invalid(errors);
    const outcome: FakeCardOutcome =
      number === '4000000000000028' || String(card.cvv).startsWith('6')
        ? { declined: '05' }
        : number === '4000000000000036'
          ? 'processing'
          : 'approved';
    const details: FakeCard = {
      brand: brandOf(number),
      firstSixDigits: number.slice(0, 6),
      lastFourDigits: number.slice(-4),
      holderName: card.holder_name as string,
      expMonth: card.exp_month as number,
      expYear: year,
    };
    const id = fake.issueToken(outcome, details);
    const created = new Date();
    return new Answer(200, {
      id,
      type: 'card',
      created_at: created.toISOString(),
      expires_at: new Date(tokens.get(id)!.expiresAt).toISOString(),
      card: {
        first_six_digits: details.firstSixDigits,
        last_four_digits: details.lastFourDigits,
        holder_name: details.holderName,
        exp_month: details.expMonth,
        exp_year: details.expYear,
        brand: details.brand,
      },
    });
  }

  function route(method: string, path: string, url: URL, body: unknown): Answer {
    const json = body as Record<string, unknown> | undefined;
    if (method === 'POST' && path === '/orders') {
      if (!json || typeof json !== 'object') throw new Invalid({ order: ['The request body is required.'] });
      return createOrder(json);
    }
    const orderMatch = /^\/orders\/([^/]+)$/.exec(path);
    if (method === 'GET' && orderMatch) {
      const order = orders.get(decodeURIComponent(orderMatch[1]!));
      if (!order) throw new Answer(404, { message: 'Order not found.' });
      return new Answer(200, order);
    }
    const chargeMatch = /^\/charges\/([^/]+)$/.exec(path);
    if (method === 'DELETE' && chargeMatch) return refund(decodeURIComponent(chargeMatch[1]!), json);
    if (method === 'POST' && path === '/tokens') return issueCardToken(url, json);
    throw new Answer(404, { message: 'No HTTP resource was found that matches the request URI.' });
  }

  function send(res: ServerResponse, answer: Answer): void {
    const text = JSON.stringify(answer.body);
    res.writeHead(answer.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      // The page's script calls /tokens from the buyer's browser.
      'access-control-allow-origin': '*',
    });
    res.end(text);
  }

  /** Runs the call, turning a refusal into its answer (422 for a bad body). */
  function answer(method: string, path: string, url: URL, body: unknown): Answer {
    try {
      return route(method, path, url, body);
    } catch (error) {
      if (error instanceof Answer) return error;
      if (error instanceof Invalid)
        return new Answer(422, { message: 'The request is invalid.', errors: error.errors });
      throw error;
    }
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const method = req.method ?? '';
    const text = await readBody(req);
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      return send(res, new Answer(400, { message: 'The request body is not valid JSON.' }));
    }
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    requests.push({
      method,
      path: url.pathname + url.search,
      authorization: req.headers.authorization,
      idempotencyKey,
      body,
    });
    if (method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'content-type',
      });
      return void res.end();
    }
    if (!url.pathname.startsWith('/core/v5/')) return send(res, new Answer(404, { message: 'Not found.' }));
    const path = url.pathname.slice('/core/v5'.length);
    // The token endpoint takes the public key in the query and no Authorization, like Pagar.me's.
    if (path === '/tokens') return send(res, answer(method, path, url, body));

    const [user, password] = Buffer.from(
      /^Basic (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '',
      'base64',
    )
      .toString('utf8')
      .split(':');
    if (user === undefined || !safeEqual(user, secretKey) || (password ?? '') !== '') {
      return send(res, new Answer(401, { message: 'Authorization has been denied for this request.' }));
    }

    const work = (): Answer => {
      const key = idempotencyKey && method !== 'GET' ? `${method} ${idempotencyKey}` : null;
      const replay = key === null ? undefined : idempotent.get(key);
      if (replay) return replay;
      const result = answer(method, path, url, body);
      // The answer as it was then: a replay shows the same order, not whatever it became since.
      const frozen = new Answer(result.status, JSON.parse(JSON.stringify(result.body)));
      if (key !== null && result.status < 500) idempotent.set(key, frozen);
      return frozen;
    };

    if (failures && failures.count > 0) {
      const { mode, after } = failures;
      if (--failures.count === 0) failures = null;
      if (mode === 'timeout') {
        work();
        hanging.add(res);
        return;
      }
      if (after) work();
      return send(res, new Answer(500, { message: 'An error has occurred.' }));
    }
    return send(res, work());
  }

  const server: Server = createServer({ key: pki.server.key, cert: pki.server.cert }, (req, res) => {
    // A bug of the fake itself: a 500 that says what.
    onRequest(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, new Answer(500, { message: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  const fake: FakePagarme = {
    baseUrl: `https://127.0.0.1:${port}/core/v5`,
    host: `127.0.0.1:${port}`,
    secretKey,
    publicKey,
    caPem: pki.ca.cert,
    requests,
    orders,
    holdRefunds: false,
    requireBillingAddress: false,

    issueToken(outcome = 'approved', card = {}) {
      const id = `token_${alnum(16)}`;
      tokens.set(id, {
        outcome,
        card: { ...DEFAULT_CARD, ...card },
        expiresAt: Date.now() + TOKEN_TTL_MS,
        used: false,
      });
      return id;
    },

    settle(orderId, result) {
      const order = orders.get(orderId);
      const charge = order?.charges[0];
      if (!order || !charge || charge.status !== 'processing')
        throw new Error(`order ${orderId} is not processing`);
      if (result === 'paid') pay(order, charge);
      else decline(order, charge, '05');
    },

    chargeback(chargeId) {
      const { charge } = chargeOf(chargeId);
      if (charge.status !== 'paid') throw new Error(`charge ${chargeId} is ${charge.status}, not paid`);
      charge.status = 'chargedback';
      transact(charge, { status: 'chargedback' });
    },

    settleRefund(chargeId, result) {
      const { order, charge } = chargeOf(chargeId);
      if (charge.last_transaction.status !== 'waiting_cancellation') {
        throw new Error(`charge ${chargeId} has no refund waiting`);
      }
      if (result === 'refunded') finishRefund(order, charge, charge.last_transaction.amount);
      else {
        transact(charge, {
          status: 'error_on_refunding',
          gateway_response: { code: '400', errors: [{ message: 'The acquirer refused the refund.' }] },
        });
      }
    },

    failNext(count = 1, mode = '500', options = {}) {
      failures = { count, mode, after: options.after ?? false };
    },

    webhook(type, orderId) {
      const order = orders.get(orderId);
      if (!order) throw new Error(`no order ${orderId}`);
      const snapshot = JSON.parse(JSON.stringify(order)) as FakeOrder;
      // A charge event carries the charge, its customer and a summary of its order.
      const { id, code, amount, currency, closed, status, created_at, updated_at, closed_at } = snapshot;
      const data = type.startsWith('charge.')
        ? {
            ...snapshot.charges[0],
            customer: snapshot.customer,
            order: { id, code, amount, currency, closed, status, created_at, updated_at, closed_at },
          }
        : snapshot;
      return {
        id: pagarmeId('hook'),
        account: { id: 'acc_FakeLojaDeTeste1', name: 'Loja de teste' },
        type,
        created_at: now(),
        data,
      };
    },

    async postWebhook(url, body, options = {}) {
      const dispatcher = options.ca ? new Agent({ connect: { ca: options.ca } }) : undefined;
      try {
        const res = await request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'PagarMe-Hookshot/1.0' },
          body: JSON.stringify(body),
          ...(dispatcher && { dispatcher }),
        });
        await res.body.dump();
        return res.statusCode;
      } finally {
        await dispatcher?.close();
      }
    },

    close() {
      for (const res of hanging) res.destroy();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  return fake;
}
