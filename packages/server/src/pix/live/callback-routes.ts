import type { FastifyInstance } from 'fastify';
import { fromBool } from '../../db/schema.js';
import type { Redis } from 'ioredis';
import { ApiError } from '../../http/api-error.js';
import { keyedRateLimit } from '../../http/keyed-rate-limit.js';
import { prefixedId } from '../../common/ids.js';
import { nowIso } from '../../common/time.js';
import { findStoreByCallbackToken } from './provider-settings.js';
import { wakeReconcilers } from './reconcile-wake.js';

/** Every callback as received, for the operator's audit; its content is only ever a hint. */
export interface PixCallbacksTable {
  id: string;
  store_id: string;
  body: string;
  /** JSON array of the txids it named. */
  txids: string;
  received_at: string;
}

declare module '../../db/schema.js' {
  interface Tables {
    pix_callbacks: PixCallbacksTable;
  }
}

const TXID = /^[A-Za-z0-9]{1,35}$/;
const END_TO_END_ID = /^[A-Za-z0-9]{32}$/;

/** `{"pix":[…]}` or a bare array; only the ids are read, and only as hints of what to ask the PSP. */
function namedIds(body: unknown): { txids: string[]; endToEndIds: string[] } {
  const items: unknown[] = Array.isArray(body)
    ? body
    : Array.isArray((body as { pix?: unknown } | null)?.pix)
      ? (body as { pix: unknown[] }).pix
      : [];
  const txids = new Set<string>();
  const endToEndIds = new Set<string>();
  for (const item of items.slice(0, 1000)) {
    const { txid, endToEndId } = (item ?? {}) as { txid?: unknown; endToEndId?: unknown };
    if (typeof txid === 'string' && TXID.test(txid)) txids.add(txid);
    if (typeof endToEndId === 'string' && END_TO_END_ID.test(endToEndId)) endToEndIds.add(endToEndId);
  }
  return { txids: [...txids], endToEndIds: [...endToEndIds] };
}

/**
 * `POST /callbacks/pix/<token>` (and `…/pix`, which PSPs append): the PSP's notice of received Pix
 * and settled refunds. It is persisted and answered 200 at once, and never trusted: it only makes
 * the named charges and refunds due for the reconciler, which asks the PSP (`GET /cob/{txid}`,
 * `GET /pix/{e2eid}/devolucao/{id}`) before anything changes.
 */
export async function pixCallbackRoutes(
  app: FastifyInstance,
  options: { redis: Redis | null },
): Promise<void> {
  const { db, config } = app;
  // Per store (its token): a PSP sends one callback per payment or refund, far below this; a leaked
  // token cannot fill the database. A callback refused with 429 is retried by the PSP, and the
  // reconciler's own polling finds the payment anyway.
  const limit = keyedRateLimit('pix-callbacks', config.pixCallbackRateLimitPerMinute, options.redis, app.log);
  app.addHook('onClose', async () => limit.close());

  /** 'unknown': no store has this token; a number: seconds to wait; 'received': stored. */
  async function receive(token: string, body: unknown): Promise<'unknown' | 'received' | number> {
    const provider = await findStoreByCallbackToken(db, token);
    if (!provider) return 'unknown';
    const storeId = provider.store_id;
    const wait = await limit.consume(storeId);
    if (wait !== null) return wait;
    const { txids, endToEndIds } = namedIds(body);
    const now = nowIso();
    const touched = await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('pix_callbacks')
        .values({
          id: prefixedId('pcb'),
          store_id: storeId,
          body: JSON.stringify(body ?? null).slice(0, 64 * 1024),
          txids: JSON.stringify(txids),
          received_at: now,
        })
        .execute();
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
      return charges;
    });
    // Every callback is logged; what it names is only checked at the PSP, so a forged one is visible
    // here and changes nothing there.
    app.log.info(
      {
        store_id: storeId,
        txids,
        to_check: Number(touched),
        unknown_or_settled: txids.length - Number(touched),
      },
      'pix callback received; its charges are confirmed at the PSP before anything changes',
    );
    wakeReconcilers();
    return 'received';
  }

  for (const url of ['/callbacks/pix/:token', '/callbacks/pix/:token/pix']) {
    app.post<{ Params: { token: string } }>(url, { schema: { hide: true } }, async (request, reply) => {
      const outcome = await receive(request.params.token, request.body);
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
