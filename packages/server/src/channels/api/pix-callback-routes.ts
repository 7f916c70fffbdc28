import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { fromBool } from '../../platform/db/schema.js';
import type { Redis } from 'ioredis';
import { ApiError } from '../../platform/http/api-error.js';
import { keyedRateLimit } from '../../platform/http/keyed-rate-limit.js';
import { prefixedId } from '../../platform/values/ids.js';
import { nowIso } from '../../platform/values/time.js';
import { findStoreByCallbackToken } from '../../domain/payments/api-pix/provider-settings.js';
import { RECONCILE_WAKE } from '../../domain/pix/live/reconcile-schedule.js';
import { wakeOnCommit } from '../../platform/jobs/wake.js';

/** Every callback as received, for the operator's audit; its content is only ever a hint. */
export interface PixCallbacksTable {
  id: string;
  store_id: string;
  body: string;
  /** JSON array of the ids it named: txids (`/pix`, `/cobr`) or idRecs (`/rec`). */
  txids: string;
  received_at: string;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    pix_callbacks: PixCallbacksTable;
  }
}

const TXID = /^[A-Za-z0-9]{1,35}$/;
const END_TO_END_ID = /^[A-Za-z0-9]{32}$/;
const ID_REC = /^[A-Za-z0-9]{29}$/;
/** At most this many items of a callback are read: a PSP batches, a flood does not get further. */
const MAX_ITEMS = 1000;

/** `{"pix":[…]}` or a bare array; only the ids are read, and only as hints of what to ask the PSP. */
function namedIds(body: unknown): { txids: string[]; endToEndIds: string[] } {
  const items: unknown[] = Array.isArray(body)
    ? body
    : Array.isArray((body as { pix?: unknown } | null)?.pix)
      ? (body as { pix: unknown[] }).pix
      : [];
  const txids = new Set<string>();
  const endToEndIds = new Set<string>();
  for (const item of items.slice(0, MAX_ITEMS)) {
    const { txid, endToEndId } = (item ?? {}) as { txid?: unknown; endToEndId?: unknown };
    if (typeof txid === 'string' && TXID.test(txid)) txids.add(txid);
    if (typeof endToEndId === 'string' && END_TO_END_ID.test(endToEndId)) endToEndIds.add(endToEndId);
  }
  return { txids: [...txids], endToEndIds: [...endToEndIds] };
}

/** `{"recs":[…]}` (rec) or `{"cobsr":[…]}` (cobr), or a bare array: the idRecs and txids it names. */
function namedRecurring(body: unknown, list: 'recs' | 'cobsr'): { idRecs: string[]; txids: string[] } {
  const items: unknown[] = Array.isArray(body)
    ? body
    : Array.isArray((body as Record<string, unknown> | null)?.[list])
      ? ((body as Record<string, unknown>)[list] as unknown[])
      : [];
  const idRecs = new Set<string>();
  const txids = new Set<string>();
  for (const item of items.slice(0, MAX_ITEMS)) {
    const { idRec, txid } = (item ?? {}) as { idRec?: unknown; txid?: unknown };
    if (typeof idRec === 'string' && ID_REC.test(idRec)) idRecs.add(idRec);
    if (list === 'cobsr' && typeof txid === 'string' && TXID.test(txid)) txids.add(txid);
  }
  return { idRecs: [...idRecs], txids: [...txids] };
}

/**
 * Makes what a Pix Automático callback names due for a check at the PSP (`GET /rec/{idRec}`,
 * `GET /cobr/{txid}`), in the callback's transaction; returns how many rows it made due. The
 * subscriptions module owns those rows and passes this in.
 */
export type RecurringCallbackTarget = (
  trx: Kysely<Database>,
  storeId: string,
  named: { idRecs: string[]; txids: string[] },
) => Promise<number>;

export interface PixCallbackRoutesOptions {
  redis: Redis | null;
  recurring?: RecurringCallbackTarget;
}

/** 'unknown': no store has this token; a number: seconds to wait; 'received': stored. */
type CallbackOutcome = 'unknown' | 'received' | number;

/**
 * `POST /callbacks/pix/<token>` (and `…/pix`, which PSPs append): the PSP's notice of received Pix
 * and settled refunds; `…/rec` and `…/cobr`: its notices about Pix Automático authorisations and
 * cycle charges. Each is persisted and answered 200 at once, and never trusted: it only makes what it
 * names due for the reconciler, which asks the PSP (`GET /cob/{txid}`, `GET /pix/{e2eid}/devolucao/{id}`,
 * `GET /rec/{idRec}`, `GET /cobr/{txid}`) before anything changes.
 */
export async function pixCallbackRoutes(
  app: FastifyInstance,
  options: PixCallbackRoutesOptions,
): Promise<void> {
  const { db, config } = app;
  // Per store (its token): a PSP sends one callback per payment or refund, far below this; a leaked
  // token cannot fill the database. A callback refused with 429 is retried by the PSP, and the
  // reconciler's own polling finds the payment anyway.
  const limit = keyedRateLimit('pix-callbacks', config.pixCallbackRateLimitPerMinute, options.redis, app.log);
  app.addHook('onClose', async () => limit.close());

  /**
   * Persists the callback with the ids it named, then `markDue` in the same transaction. 'unknown': no
   * store has this token; a number: seconds to wait (over the store's limit).
   */
  async function persist(
    token: string,
    body: unknown,
    ids: string[],
    markDue: (trx: Kysely<Database>, storeId: string, now: string) => Promise<number>,
  ): Promise<{ storeId: string; touched: number } | 'unknown' | number> {
    const provider = await findStoreByCallbackToken(db, token);
    if (!provider) return 'unknown';
    const storeId = provider.store_id;
    const wait = await limit.consume(storeId);
    if (wait !== null) return wait;
    const now = nowIso();
    const touched = await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('pix_callbacks')
        .values({
          id: prefixedId('pcb'),
          store_id: storeId,
          body: JSON.stringify(body ?? null).slice(0, 64 * 1024),
          txids: JSON.stringify(ids),
          received_at: now,
        })
        .execute();
      await wakeOnCommit(trx, RECONCILE_WAKE);
      return markDue(trx, storeId, now);
    });
    return { storeId, touched };
  }

  async function receive(token: string, body: unknown) {
    const { txids, endToEndIds } = namedIds(body);
    const received = await persist(token, body, txids, async (trx, storeId, now) => {
      let charges = 0n;
      if (txids.length > 0) {
        const result = await trx
          .updateTable('pix_charges')
          .set({ next_check_at: now })
          .where('store_id', '=', storeId)
          .where('livemode', '=', fromBool(true))
          .where('txid', 'in', txids)
          .where('next_check_at', 'is not', null)
          .executeTakeFirst();
        charges = result.numUpdatedRows;
      }
      if (endToEndIds.length > 0) {
        await trx
          .updateTable('sales')
          .set({ refund_next_check_at: now })
          .where('store_id', '=', storeId)
          .where('livemode', '=', fromBool(true))
          .where('pix_end_to_end_id', 'in', endToEndIds)
          .where('refund_status', '=', 'pending')
          .execute();
      }
      return Number(charges);
    });
    if (typeof received !== 'object') return received;
    // Every callback is logged; what it names is only checked at the PSP, so a forged one is visible
    // here and changes nothing there.
    app.log.info(
      {
        store_id: received.storeId,
        txids,
        to_check: received.touched,
        unknown_or_settled: txids.length - received.touched,
      },
      'pix callback received; its charges are confirmed at the PSP before anything changes',
    );
    return 'received';
  }

  async function receiveRecurring(token: string, body: unknown, kind: 'rec' | 'cobr') {
    const named = namedRecurring(body, kind === 'rec' ? 'recs' : 'cobsr');
    const ids = kind === 'rec' ? named.idRecs : named.txids;
    const received = await persist(token, body, ids, (trx, storeId) =>
      options.recurring ? options.recurring(trx, storeId, named) : Promise.resolve(0),
    );
    if (typeof received !== 'object') return received;
    app.log.info(
      { store_id: received.storeId, kind, ids, to_check: received.touched },
      'pix automático callback received; what it names is confirmed at the PSP before anything changes',
    );
    return 'received';
  }

  const routes: [string, (token: string, body: unknown) => Promise<CallbackOutcome>][] = [
    ['/callbacks/pix/:token', receive],
    ['/callbacks/pix/:token/pix', receive],
    ['/callbacks/pix/:token/rec', (token, body) => receiveRecurring(token, body, 'rec')],
    ['/callbacks/pix/:token/cobr', (token, body) => receiveRecurring(token, body, 'cobr')],
  ];
  for (const [url, handle] of routes) {
    app.post<{ Params: { token: string } }>(url, { schema: { hide: true } }, async (request, reply) => {
      const outcome = await handle(request.params.token, request.body);
      if (outcome === 'unknown') throw new ApiError(404, 'not_found', 'Unknown callback URL.');
      if (typeof outcome === 'number') {
        throw new ApiError(
          429,
          'rate_limited',
          `Too many callbacks for this store; retry after ${outcome} s.`,
          null,
          { 'Retry-After': String(outcome) },
        );
      }
      return reply.code(200).send({ received: true });
    });
  }
}
