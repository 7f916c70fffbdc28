import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import { Agent, request } from 'undici';
import { testPki } from './test-pki.js';

/**
 * A fake Mercado Pago (Checkout API) over real HTTPS, as its public documentation describes it, for
 * tests of the card adapter and of the flows built on it.
 *
 * - TLS: a server certificate for 127.0.0.1 signed by `testPki()`'s CA (`caPem`), no client certificate.
 * - Every call needs `Authorization: Bearer <accessToken>` (401 and Mercado Pago's error body otherwise).
 * - `POST /v1/payments` needs `X-Idempotency-Key` (400 without); the same key answers the same payment
 *   and never charges again. The body is checked as Mercado Pago does (amount a number of reais with at
 *   most 2 decimals, installments 1..12, a card token known and unused, the brand, the payer's e-mail
 *   and CPF/CNPJ, an absolute notification_url, no field it does not know).
 * - What happens is chosen by the card token (`mpCardToken(outcome)`): approved, rejected with any
 *   `status_detail`, `in_process`, or a 3-D Secure challenge (`pending`/`pending_challenge` with
 *   `three_ds_info`), which a test then completes or fails (`completeChallenge`).
 * - `GET /v1/payments/{id}`, `POST /v1/payments/{id}/refunds` (also idempotent by key),
 *   `GET /v1/payment_methods/installments?amount=&bin=` (interest-free up to 3, Mercado Pago-like
 *   rates beyond, up to 12, an installment never under R$ 5,00; two known BINs, others answer `[]`).
 * - Each change of a payment that has a `notification_url` is notified there, signed with
 *   `webhookSecret` as Mercado Pago signs (`x-signature`, `x-request-id`), unless `dropNotifications`.
 * - Control surface: `settle`, `completeChallenge`, `chargeBack`, `nextRefundStatus`, `failNext`,
 *   `notification` / `sendNotification` (signed, forged or unsigned), and `requests`.
 */

export interface FakeMercadoPagoOptions {
  accessToken?: string;
  publicKey?: string;
  /** The application's secret signature, what notifications are signed with. */
  webhookSecret?: string;
}

/** What a card token makes the payment do. `rejected`: the `status_detail` it is rejected with. */
export type FakeMpOutcome = 'approved' | 'in_process' | 'challenge' | { rejected: string };

export interface FakeMpPayment {
  id: number;
  status: string;
  status_detail: string;
  transaction_amount: number;
  transaction_amount_refunded: number;
  installments: number;
  payment_method_id: string;
  issuer_id: number | string | null;
  token: string;
  idempotencyKey: string;
  payer: { email: string; first_name: string | null; identification: { type: string; number: string } };
  external_reference: string | null;
  notification_url: string | null;
  three_d_secure_mode: string;
  statement_descriptor: string | null;
  description: string | null;
  authorization_code: string | null;
  date_created: string;
  date_approved: string | null;
  date_last_updated: string;
  three_ds_info: { external_resource_url: string; creq: string } | null;
  refunds: FakeMpRefund[];
}

export interface FakeMpRefund {
  id: number;
  payment_id: number;
  amount: number;
  status: string;
  date_created: string;
  idempotencyKey: string;
}

export interface MpRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  body: unknown;
}

/** A notification as Mercado Pago sends it: where, with which headers, and the raw body. */
export interface MpNotification {
  url: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: string;
}

export interface FakeMercadoPago {
  /** `https://127.0.0.1:<port>`: what the adapter's `baseUrl` is. */
  baseUrl: string;
  /** `127.0.0.1:<port>`, the form an operator writes in STOREFRONT_PSP_ALLOWED_HOSTS. */
  host: string;
  accessToken: string;
  publicKey: string;
  webhookSecret: string;
  /** The CA that signed the fake's server certificate. */
  caPem: string;
  /** By Mercado Pago's id. */
  payments: Map<number, FakeMpPayment>;
  /** Every request received, in order (refused ones too). */
  requests: MpRequest[];
  /** Every notification sent and the status it got (null: no answer). */
  notifications: { url: string; body: string; status: number | null }[];
  /** When true, payments change but no notification is sent. */
  dropNotifications: boolean;
  /** The status the next refunds get (default `approved`). */
  nextRefundStatus: 'approved' | 'in_process' | 'rejected';
  /** The payment Mercado Pago made for our id (`external_reference`), if any. */
  paymentFor(externalReference: string): FakeMpPayment | undefined;
  /**
   * The next `count` calls fail: `error` answers 500 without doing anything, `error_after_work` does the
   * work and answers 500 (an answer lost on the way back), `slow` does the work and answers after
   * `delayMs` (longer than the client's timeout).
   */
  failNext(mode: 'error' | 'error_after_work' | 'slow', options?: { count?: number; delayMs?: number }): void;
  /** The 3-D Secure challenge of a `pending_challenge` payment ends: approved, or rejected `cc_rejected_3ds_challenge`. */
  completeChallenge(id: number, result: 'authenticated' | 'failed'): Promise<void>;
  /** An `in_process` payment is decided: approved, or rejected with `statusDetail` (default `cc_rejected_other_reason`). */
  settle(id: number, result: 'approved' | 'rejected', statusDetail?: string): Promise<void>;
  /** The buyer's bank took an approved payment back. */
  chargeBack(id: number): Promise<void>;
  /**
   * A `payment` notification for `id`, as Mercado Pago would send it to `url`: `signed` with the
   * secret, `forged` (a signature made with another secret) or `unsigned` (no x-signature at all).
   */
  notification(
    url: string,
    id: number | string,
    signature?: 'signed' | 'forged' | 'unsigned',
  ): MpNotification;
  /** Sends `notification(…)`; answers the receiver's status (null: no answer). */
  sendNotification(
    url: string,
    id: number | string,
    signature?: 'signed' | 'forged' | 'unsigned',
  ): Promise<number | null>;
  close(): Promise<void>;
}

/** Test cards (Mercado Pago's own Brazilian test numbers) by the BIN the installments endpoint knows. */
const CARDS: Record<string, { brand: string; issuer: { id: string; name: string }; last4: string }> = {
  '503143': { brand: 'master', issuer: { id: '24', name: 'Mastercard' }, last4: '6351' },
  '423564': { brand: 'visa', issuer: { id: '25', name: 'Visa' }, last4: '5682' },
};

/**
 * Total interest (percent over the amount) past the 3 interest-free installments, in the shape Mercado
 * Pago answers as `installment_rate`.
 */
const RATES: Record<number, number> = {
  4: 8.65,
  5: 10.33,
  6: 12.03,
  7: 13.75,
  8: 15.48,
  9: 17.23,
  10: 19.0,
  11: 20.79,
  12: 22.59,
};
const INTEREST_FREE = 3;
const MIN_INSTALLMENT = 5;

const KNOWN_FIELDS = new Set([
  'transaction_amount',
  'installments',
  'token',
  'payment_method_id',
  'issuer_id',
  'payer',
  'external_reference',
  'notification_url',
  'three_d_secure_mode',
  'statement_descriptor',
  'description',
  'binary_mode',
  'capture',
  'metadata',
  'additional_info',
]);

/** A card token of the fake: its outcome is readable in it, its tail makes it single-use. */
export function mpCardToken(outcome: FakeMpOutcome): string {
  const tag = typeof outcome === 'string' ? outcome : `rejected.${outcome.rejected}`;
  return `${tag}.${randomBytes(12).toString('hex')}`;
}

function outcomeOfToken(token: string): FakeMpOutcome | null {
  const parts = token.split('.');
  if (
    parts.length === 2 &&
    (parts[0] === 'approved' || parts[0] === 'in_process' || parts[0] === 'challenge')
  ) {
    return parts[0];
  }
  if (parts.length === 3 && parts[0] === 'rejected' && /^[a-z0-9_]+$/.test(parts[1]!)) {
    return { rejected: parts[1]! };
  }
  return null;
}

/** Mercado Pago's error body: `{message, error, status, cause: [{code, description}]}`. */
class MpError {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly message: string,
    readonly cause: { code: number | string; description: string }[] = [],
  ) {}
}

const badRequest = (code: number | string, description: string) =>
  new MpError(400, 'bad_request', description, [{ code, description }]);

const round2 = (value: number) => Math.round(value * 100) / 100;
const hasAtMostTwoDecimals = (value: number) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-6;

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

/** The installment options Mercado Pago offers for an amount on a card of `bin`. */
function payerCosts(amount: number) {
  const costs = [];
  for (let n = 1; n <= 12; n++) {
    const rate = n <= INTEREST_FREE ? 0 : RATES[n]!;
    const total = round2(amount * (1 + rate / 100));
    const installment = round2(total / n);
    if (n > 1 && installment < MIN_INSTALLMENT) continue;
    costs.push({
      installments: n,
      installment_rate: rate,
      discount_rate: 0,
      reimbursement_rate: null,
      labels: rate === 0 ? ['CFT_0,00%|TEA_0,00%'] : [],
      installment_rate_collector: [rate === 0 ? 'THIRD_PARTY' : 'MERCADOPAGO'],
      min_allowed_amount: 0.5,
      max_allowed_amount: 60000,
      recommended_message: `${n} parcela${n > 1 ? 's' : ''} de R$ ${installment.toFixed(2).replace('.', ',')}${
        rate === 0 ? ' sem juros' : ` (R$ ${total.toFixed(2).replace('.', ',')})`
      }`,
      installment_amount: installment,
      total_amount: total,
      payment_method_option_id: randomBytes(16).toString('hex'),
    });
  }
  return costs;
}

export async function startFakeMercadoPago(options: FakeMercadoPagoOptions = {}): Promise<FakeMercadoPago> {
  const pki = testPki();
  const accessToken = options.accessToken ?? `APP_USR-${randomBytes(8).toString('hex')}-fake`;
  const webhookSecret = options.webhookSecret ?? randomBytes(16).toString('hex');
  const payments = new Map<number, FakeMpPayment>();
  const byKey = new Map<string, FakeMpPayment>();
  const refundsByKey = new Map<string, FakeMpRefund>();
  const usedTokens = new Set<string>();
  const requests: MpRequest[] = [];
  const notifications: FakeMercadoPago['notifications'] = [];
  const delayed = new Set<{ res: ServerResponse; timer: NodeJS.Timeout }>();
  let failures: { mode: 'error' | 'error_after_work' | 'slow'; count: number; delayMs: number } | null = null;
  let nextId = 1_300_000_000 + Math.floor(Math.random() * 1_000_000) * 100;
  let port = 0;
  // Notifications go to the service under test, whose certificate the fake does not know.
  const notifier = new Agent({ connect: { rejectUnauthorized: false } });

  const payment = (id: string): FakeMpPayment => {
    const found = /^\d+$/.test(id) ? payments.get(Number(id)) : undefined;
    if (!found)
      throw new MpError(404, 'not_found', 'Payment not found', [
        { code: 2000, description: 'Payment not found' },
      ]);
    return found;
  };

  /** The payment as `GET /v1/payments/{id}` answers it. */
  function view(p: FakeMpPayment) {
    const card = CARDS[p.payment_method_id === 'visa' ? '423564' : '503143']!;
    const rate = p.installments <= INTEREST_FREE ? 0 : (RATES[p.installments] ?? 0);
    const total = round2(p.transaction_amount * (1 + rate / 100));
    return {
      id: p.id,
      date_created: p.date_created,
      date_approved: p.date_approved,
      date_last_updated: p.date_last_updated,
      money_release_date: p.date_approved,
      operation_type: 'regular_payment',
      payment_method_id: p.payment_method_id,
      payment_type_id: 'credit_card',
      status: p.status,
      status_detail: p.status_detail,
      currency_id: 'BRL',
      description: p.description,
      live_mode: false,
      collector_id: 1_234_567_890,
      payer: {
        id: null,
        type: null,
        email: p.payer.email,
        first_name: p.payer.first_name,
        identification: p.payer.identification,
      },
      metadata: {},
      external_reference: p.external_reference,
      transaction_amount: p.transaction_amount,
      transaction_amount_refunded: p.transaction_amount_refunded,
      coupon_amount: 0,
      installments: p.installments,
      transaction_details: {
        net_received_amount: p.status === 'approved' ? round2(p.transaction_amount * 0.9501) : 0,
        total_paid_amount: total,
        overpaid_amount: 0,
        installment_amount: round2(total / p.installments),
        external_resource_url: p.three_ds_info?.external_resource_url ?? null,
      },
      captured: true,
      binary_mode: false,
      statement_descriptor: p.statement_descriptor,
      notification_url: p.notification_url,
      issuer_id: p.issuer_id === null ? card.issuer.id : String(p.issuer_id),
      authorization_code: p.authorization_code,
      card: {
        id: null,
        first_six_digits: p.payment_method_id === 'visa' ? '423564' : '503143',
        last_four_digits: card.last4,
        expiration_month: 11,
        expiration_year: 2030,
        date_created: p.date_created,
        date_last_updated: p.date_created,
        cardholder: { name: 'APRO', identification: p.payer.identification },
      },
      three_ds_info: p.three_ds_info,
      refunds: p.refunds.map(refundView),
    };
  }

  function refundView(r: FakeMpRefund) {
    return {
      id: r.id,
      payment_id: r.payment_id,
      amount: r.amount,
      metadata: {},
      source: { id: '1234567890', name: 'Loja', type: 'collector' },
      date_created: r.date_created,
      unique_sequence_number: null,
      refund_mode: 'standard',
      adjustment_amount: 0,
      status: r.status,
      reason: null,
      labels: [],
      amount_refunded_to_payer: r.status === 'approved' ? r.amount : 0,
    };
  }

  function notification(
    url: string,
    id: number | string,
    signature: 'signed' | 'forged' | 'unsigned' = 'signed',
  ) {
    const dataId = String(id);
    const requestId = randomUUID();
    const ts = String(Math.floor(Date.now() / 1000));
    const target = new URL(url);
    target.searchParams.set('data.id', dataId);
    target.searchParams.set('type', 'payment');
    const body = JSON.stringify({
      action: 'payment.updated',
      api_version: 'v1',
      data: { id: dataId },
      date_created: new Date().toISOString(),
      id: Math.floor(Math.random() * 1e11),
      live_mode: false,
      type: 'payment',
      user_id: '1234567890',
    });
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': requestId };
    if (signature !== 'unsigned') {
      // Mercado Pago's manifest: the query's data.id (lower-cased when alphanumeric), the request id, the ts.
      const manifestId = /^[a-z0-9]+$/i.test(dataId) ? dataId.toLowerCase() : dataId;
      const key = signature === 'signed' ? webhookSecret : `${webhookSecret}-not`;
      const v1 = createHmac('sha256', key)
        .update(`id:${manifestId};request-id:${requestId};ts:${ts};`)
        .digest('hex');
      headers['x-signature'] = `ts=${ts},v1=${v1}`;
    }
    return { url: target.toString(), query: Object.fromEntries(target.searchParams), headers, body };
  }

  async function send(note: MpNotification): Promise<number | null> {
    try {
      const res = await request(note.url, {
        method: 'POST',
        headers: note.headers,
        body: note.body,
        dispatcher: notifier,
        signal: AbortSignal.timeout(10_000),
      });
      await res.body.text();
      notifications.push({ url: note.url, body: note.body, status: res.statusCode });
      return res.statusCode;
    } catch {
      notifications.push({ url: note.url, body: note.body, status: null });
      return null;
    }
  }

  /**
   * A payment changed: its date moves and, when it asked to be, it is notified. The API answers
   * without waiting for the notification; the control hooks wait, so a test sees it arrived.
   */
  async function changed(p: FakeMpPayment): Promise<void> {
    p.date_last_updated = new Date().toISOString();
    if (p.notification_url && !mp.dropNotifications) await send(notification(p.notification_url, p.id));
  }

  /** A payment a control hook names, or a plain error for the test. */
  function own(id: number, status: string): FakeMpPayment {
    const p = payments.get(id);
    if (!p) throw new Error(`the fake has no payment ${id}`);
    if (p.status !== status && !(status === 'pending_challenge' && p.status_detail === status)) {
      throw new Error(`payment ${id} is ${p.status}/${p.status_detail}, not ${status}`);
    }
    return p;
  }

  function approve(p: FakeMpPayment): void {
    p.status = 'approved';
    p.status_detail = 'accredited';
    p.authorization_code = String(100000 + Math.floor(Math.random() * 900000));
    p.date_approved = new Date().toISOString();
    p.three_ds_info = null;
  }

  function reject(p: FakeMpPayment, detail: string): void {
    p.status = 'rejected';
    p.status_detail = detail;
    p.three_ds_info = null;
  }

  function createPayment(body: unknown, idempotencyKey: string | undefined): [number, unknown] {
    if (!idempotencyKey) {
      throw badRequest(
        'empty_required_header',
        "The header 'X-Idempotency-Key' is required and was not sent.",
      );
    }
    const replay = byKey.get(idempotencyKey);
    if (replay) return [201, view(replay)];
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw badRequest('json_syntax_error', 'Invalid JSON');
    const b = body as Record<string, unknown>;
    const unknown = Object.keys(b).filter((k) => !KNOWN_FIELDS.has(k));
    if (unknown.length > 0)
      throw badRequest(8, `The name of the following parameters is wrong : [${unknown.join(', ')}]`);
    const amount = b.transaction_amount;
    if (typeof amount !== 'number' || !(amount > 0) || !hasAtMostTwoDecimals(amount)) {
      throw badRequest(4037, 'Invalid transaction_amount');
    }
    const installments = b.installments;
    if (!Number.isInteger(installments) || (installments as number) < 1 || (installments as number) > 12) {
      throw badRequest(3011, 'Invalid installments');
    }
    if (typeof b.payment_method_id !== 'string' || b.payment_method_id === '') {
      throw badRequest(4020, "payment_method_id attribute can't be null");
    }
    const token = b.token;
    if (typeof token !== 'string' || token === '') throw badRequest(4033, 'Invalid card_token_id');
    const outcome = outcomeOfToken(token);
    if (!outcome) throw badRequest(2006, 'Card Token not found');
    if (usedTokens.has(token)) throw badRequest(3003, 'Invalid card_token_id');
    const payer = b.payer as
      | { email?: unknown; first_name?: unknown; identification?: { type?: unknown; number?: unknown } }
      | undefined;
    if (typeof payer?.email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(payer.email)) {
      throw badRequest(4050, 'payer.email must be a valid email');
    }
    const identification = payer.identification;
    const document = identification?.number;
    if (
      !(identification?.type === 'CPF' && typeof document === 'string' && /^\d{11}$/.test(document)) &&
      !(identification?.type === 'CNPJ' && typeof document === 'string' && /^\d{14}$/.test(document))
    ) {
      throw badRequest(2067, 'Invalid user identification number');
    }
    if (b.notification_url !== undefined) {
      const valid =
        typeof b.notification_url === 'string' &&
        URL.canParse(b.notification_url) &&
        /^https?:/.test(b.notification_url);
      if (!valid) throw badRequest(4020, 'notificaction_url attribute must be url valid');
    }
    const mode = b.three_d_secure_mode ?? 'not_supported';
    if (mode !== 'not_supported' && mode !== 'optional' && mode !== 'mandatory') {
      throw badRequest(4292, 'Invalid three_d_secure_mode');
    }
    usedTokens.add(token);
    const now = new Date().toISOString();
    const id = nextId++;
    const p: FakeMpPayment = {
      id,
      status: 'pending',
      status_detail: 'pending_contingency',
      transaction_amount: amount,
      transaction_amount_refunded: 0,
      installments: installments as number,
      payment_method_id: b.payment_method_id,
      issuer_id: typeof b.issuer_id === 'number' || typeof b.issuer_id === 'string' ? b.issuer_id : null,
      token,
      idempotencyKey,
      payer: {
        email: payer.email,
        first_name: typeof payer.first_name === 'string' ? payer.first_name : null,
        identification: { type: identification!.type as string, number: document as string },
      },
      external_reference: typeof b.external_reference === 'string' ? b.external_reference : null,
      notification_url: typeof b.notification_url === 'string' ? b.notification_url : null,
      three_d_secure_mode: mode,
      statement_descriptor: typeof b.statement_descriptor === 'string' ? b.statement_descriptor : null,
      description: typeof b.description === 'string' ? b.description : null,
      authorization_code: null,
      date_created: now,
      date_approved: null,
      date_last_updated: now,
      three_ds_info: null,
      refunds: [],
    };
    if (outcome === 'approved') approve(p);
    else if (outcome === 'in_process') {
      p.status = 'in_process';
      p.status_detail = 'pending_contingency';
    } else if (outcome === 'challenge') {
      if (mode === 'not_supported') reject(p, 'cc_rejected_3ds_mandatory');
      else {
        p.status = 'pending';
        p.status_detail = 'pending_challenge';
        const creq = Buffer.from(
          JSON.stringify({
            threeDSServerTransID: randomUUID(),
            messageType: 'CReq',
            messageVersion: '2.2.0',
            challengeWindowSize: '04',
          }),
        ).toString('base64url');
        p.three_ds_info = { external_resource_url: `https://127.0.0.1:${port}/3ds/challenge/${id}`, creq };
      }
    } else reject(p, outcome.rejected);
    payments.set(id, p);
    byKey.set(idempotencyKey, p);
    void changed(p);
    return [201, view(p)];
  }

  function refund(p: FakeMpPayment, body: unknown, idempotencyKey: string | undefined): [number, unknown] {
    if (!idempotencyKey) {
      throw badRequest(
        'empty_required_header',
        "The header 'X-Idempotency-Key' is required and was not sent.",
      );
    }
    const replay = refundsByKey.get(idempotencyKey);
    if (replay) return [201, refundView(replay)];
    if (p.status !== 'approved')
      throw badRequest(2024, 'Payment too old to be refunded or not in a refundable status');
    const remaining = round2(p.transaction_amount - p.transaction_amount_refunded);
    const asked = (body as { amount?: unknown } | undefined)?.amount;
    if (asked !== undefined && (typeof asked !== 'number' || !(asked > 0) || !hasAtMostTwoDecimals(asked))) {
      throw badRequest(4037, 'Invalid refund amount');
    }
    const amount = asked === undefined ? remaining : asked;
    if (amount > remaining + 1e-9)
      throw badRequest(2085, 'Invalid refund amount, exceeds the available amount');
    const r: FakeMpRefund = {
      id: nextId++,
      payment_id: p.id,
      amount,
      status: mp.nextRefundStatus,
      date_created: new Date().toISOString(),
      idempotencyKey,
    };
    refundsByKey.set(idempotencyKey, r);
    p.refunds.push(r);
    if (r.status === 'approved') {
      p.transaction_amount_refunded = round2(p.transaction_amount_refunded + amount);
      if (p.transaction_amount_refunded >= p.transaction_amount - 1e-9) {
        p.status = 'refunded';
        p.status_detail = 'refunded';
      } else p.status_detail = 'partially_refunded';
      void changed(p);
    }
    return [201, refundView(r)];
  }

  function installmentOptions(query: URLSearchParams): [number, unknown] {
    const amount = Number(query.get('amount'));
    if (!query.has('amount') || !(amount > 0)) throw badRequest(2001, 'amount must be a positive number');
    const card = CARDS[(query.get('bin') ?? '').slice(0, 6)];
    if (!card) return [200, []];
    return [
      200,
      [
        {
          payment_method_id: card.brand,
          payment_type_id: 'credit_card',
          thumbnail: null,
          issuer: { id: card.issuer.id, name: card.issuer.name, secure_thumbnail: null, thumbnail: null },
          processing_mode: 'aggregator',
          merchant_account_id: null,
          payer_costs: payerCosts(amount),
          agreements: null,
        },
      ],
    ];
  }

  function route(
    method: string,
    url: URL,
    body: unknown,
    idempotencyKey: string | undefined,
  ): [number, unknown] {
    const segments = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const path = segments.join('/');
    if (method === 'POST' && path === 'v1/payments') return createPayment(body, idempotencyKey);
    if (method === 'GET' && path === 'v1/payment_methods/installments')
      return installmentOptions(url.searchParams);
    if (segments[0] === 'v1' && segments[1] === 'payments' && segments.length === 3 && method === 'GET') {
      return [200, view(payment(segments[2]!))];
    }
    if (
      segments[0] === 'v1' &&
      segments[1] === 'payments' &&
      segments[3] === 'refunds' &&
      segments.length === 4
    ) {
      if (method === 'POST') return refund(payment(segments[2]!), body, idempotencyKey);
      if (method === 'GET') return [200, payment(segments[2]!).refunds.map(refundView)];
    }
    throw new MpError(404, 'not_found', `Resource ${url.pathname} not found`);
  }

  const sendJson = (res: ServerResponse, status: number, body: unknown) => {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const sendError = (res: ServerResponse, error: MpError) =>
    sendJson(res, error.status, {
      message: error.message,
      error: error.error,
      status: error.status,
      cause: error.cause,
    });

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const text = await readBody(req);
    const method = req.method ?? '';
    const idempotencyKey = req.headers['x-idempotency-key'] as string | undefined;
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = text;
    }
    requests.push({
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorization: req.headers.authorization,
      idempotencyKey,
      body,
    });
    if (typeof body === 'string') return sendError(res, badRequest('json_syntax_error', 'Invalid JSON'));
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (bearer === undefined) return sendError(res, new MpError(401, 'unauthorized', 'unauthorized'));
    if (!safeEqual(bearer, accessToken))
      return sendError(res, new MpError(401, 'unauthorized', 'invalid access token'));

    const injected = failures;
    if (injected && injected.count > 0) {
      injected.count--;
      if (injected.count === 0) failures = null;
      const internal = new MpError(500, 'internal_server_error', 'Internal server error');
      if (injected.mode === 'error') return sendError(res, internal);
      let answer: [number, unknown] | MpError;
      try {
        answer = route(method, url, body, idempotencyKey);
      } catch (error) {
        if (!(error instanceof MpError)) throw error;
        answer = error;
      }
      if (injected.mode === 'error_after_work') return sendError(res, internal);
      const entry = {
        res,
        timer: setTimeout(() => {
          delayed.delete(entry);
          if (answer instanceof MpError) sendError(res, answer);
          else sendJson(res, answer[0], answer[1]);
        }, injected.delayMs),
      };
      delayed.add(entry);
      return;
    }
    try {
      const [status, answer] = route(method, url, body, idempotencyKey);
      return sendJson(res, status, answer);
    } catch (error) {
      if (error instanceof MpError) return sendError(res, error);
      throw error;
    }
  }

  const server: Server = createServer({ key: pki.server.key, cert: pki.server.cert }, (req, res) => {
    onRequest(req, res).catch((error: unknown) => {
      // A bug of the fake itself: a 500 that says what.
      if (!res.headersSent) sendError(res, new MpError(500, 'internal_server_error', String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : 0;

  const mp: FakeMercadoPago = {
    baseUrl: `https://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    accessToken,
    publicKey: options.publicKey ?? `APP_USR-${randomUUID()}`,
    webhookSecret,
    caPem: pki.ca.cert,
    payments,
    requests,
    notifications,
    dropNotifications: false,
    nextRefundStatus: 'approved',
    paymentFor: (externalReference) =>
      [...payments.values()].find((p) => p.external_reference === externalReference),
    failNext(mode, failOptions = {}) {
      failures = { mode, count: failOptions.count ?? 1, delayMs: failOptions.delayMs ?? 5_000 };
    },
    completeChallenge(id, result) {
      const p = own(id, 'pending_challenge');
      if (result === 'authenticated') approve(p);
      else reject(p, 'cc_rejected_3ds_challenge');
      return changed(p);
    },
    settle(id, result, statusDetail = 'cc_rejected_other_reason') {
      const p = own(id, 'in_process');
      if (result === 'approved') approve(p);
      else reject(p, statusDetail);
      return changed(p);
    },
    chargeBack(id) {
      const p = own(id, 'approved');
      p.status = 'charged_back';
      p.status_detail = 'settled';
      return changed(p);
    },
    notification,
    sendNotification: (url, id, signature) => send(notification(url, id, signature)),
    async close() {
      for (const entry of delayed) {
        clearTimeout(entry.timer);
        entry.res.destroy();
      }
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await notifier.close();
    },
  };
  return mp;
}
