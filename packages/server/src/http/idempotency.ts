import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { createSecretBox } from '../shared/secret-box.js';
import { isoAfter, nowIso } from '../shared/time.js';
import { ApiError, invalidRequest } from './api-error.js';
import { CONTROL_CHARACTER } from './text-patterns.js';

interface IdempotencyKeysTable {
  store_id: string;
  key: string;
  fingerprint: string;
  state: 'in_progress' | 'done';
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}

declare module '../db/schema.js' {
  interface Tables {
    idempotency_keys: IdempotencyKeysTable;
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The operation accepts `Idempotency-Key` (creations). */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    idempotencyKey: string | null;
  }
}

const HEADER = 'idempotency-key';
const KEEP_MS = 24 * 60 * 60 * 1000;
/** A first request still "in progress" after this long died with its process; its key is freed. */
const ABANDONED_AFTER_MS = 60 * 1000;

function asArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

const conflict = (message: string) => new ApiError(409, 'idempotency_conflict', message, 'Idempotency-Key');

function fingerprintOf(request: FastifyRequest): string {
  const path = request.url.split('?')[0];
  return createHash('sha256')
    .update(`${request.method} ${path}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex');
}

/** Bound to its row, so a sealed answer copied to another key does not open there. */
const replayBinding = (storeId: string, key: string) => `idempotency:${storeId}:${key}`;

/**
 * Idempotency-Key on creations. The first request claims the key by inserting a row,
 * so the unique constraint, not memory, decides the race between processes; it stores its answer
 * when done. A retry with the same body replays that answer; anything else is 409.
 */
export const idempotencyPlugin = fp<{ db: Kysely<Database>; secret: string }>(
  async (app: FastifyInstance, { db, secret }) => {
    app.decorateRequest('idempotencyKey', null);
    // Kept answers can hold secrets (a webhook endpoint's signing secret): sealed at rest like them.
    const secretBox = createSecretBox(secret);

    function replay(reply: FastifyReply, row: IdempotencyKeysTable): FastifyReply {
      const stored = row.response_body ?? '';
      // Answers kept before they were sealed are JSON, which never starts like a sealed value.
      const body = stored.startsWith('v1.')
        ? secretBox.open(stored, replayBinding(row.store_id, row.key))
        : stored;
      return reply
        .code(row.response_status ?? 200)
        .header('Idempotent-Replayed', 'true')
        .type('application/json; charset=utf-8')
        .send(body);
    }

    const deleteKey = (storeId: string, key: string) =>
      db.deleteFrom('idempotency_keys').where('store_id', '=', storeId).where('key', '=', key);

    async function claim(
      storeId: string,
      key: string,
      fingerprint: string,
    ): Promise<IdempotencyKeysTable | null> {
      const now = new Date();
      try {
        await db
          .insertInto('idempotency_keys')
          .values({
            store_id: storeId,
            key,
            fingerprint,
            state: 'in_progress',
            response_status: null,
            response_body: null,
            created_at: now.toISOString(),
            expires_at: isoAfter(KEEP_MS, now),
          })
          .execute();
        return null;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
      const existing = await db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('key', '=', key)
        .executeTakeFirst();
      if (!existing) return claim(storeId, key, fingerprint); // freed meanwhile
      const expired = existing.expires_at <= now.toISOString();
      const abandoned =
        existing.state === 'in_progress' && existing.created_at <= isoAfter(-ABANDONED_AFTER_MS, now);
      if (expired || abandoned) {
        const freed = await deleteKey(storeId, key)
          .where('created_at', '=', existing.created_at)
          .executeTakeFirst();
        if (freed.numDeletedRows > 0n) return claim(storeId, key, fingerprint);
      }
      return existing;
    }

    async function claimOrReplay(
      request: FastifyRequest,
      reply: FastifyReply,
    ): Promise<FastifyReply | undefined> {
      const key = request.headers[HEADER];
      if (key === undefined) return;
      if (typeof key !== 'string' || key.length < 1 || key.length > 255 || CONTROL_CHARACTER.test(key)) {
        throw invalidRequest(
          'Idempotency-Key must be 1 to 255 characters, none of them a control character.',
          'Idempotency-Key',
        );
      }
      const fingerprint = fingerprintOf(request);
      const existing = await claim(request.auth.storeId, key, fingerprint);
      if (existing === null) {
        request.idempotencyKey = key;
        return;
      }
      if (existing.fingerprint !== fingerprint) {
        throw conflict('This Idempotency-Key was already used with another request body or path.');
      }
      if (existing.state === 'in_progress') {
        throw conflict('A request with this Idempotency-Key is still being processed. Retry later.');
      }
      return replay(reply, existing); // an early answer: the handler does not run
    }

    // The answer is recorded once serialized, exactly as sent. 5xx answers are not kept, so a retry runs again.
    async function recordAnswer(
      request: FastifyRequest,
      reply: FastifyReply,
      payload: unknown,
    ): Promise<unknown> {
      const key = request.idempotencyKey;
      if (key === null) return payload;
      request.idempotencyKey = null;
      if (reply.statusCode >= 500) {
        // Often the database itself is what failed: then the key frees itself as abandoned, and the
        // answer the client gets stays the 5xx rather than a failure to forget the key.
        await deleteKey(request.auth.storeId, key)
          .execute()
          .catch((error: unknown) =>
            request.log.warn({ error: (error as Error).message }, 'idempotency key not freed'),
          );
      } else {
        await db
          .updateTable('idempotency_keys')
          .set({
            state: 'done',
            response_status: reply.statusCode,
            response_body: secretBox.seal(String(payload ?? ''), replayBinding(request.auth.storeId, key)),
          })
          .where('store_id', '=', request.auth.storeId)
          .where('key', '=', key)
          .execute();
      }
      return payload;
    }

    // A request that never reached onSend (client gone) must not hold its key.
    async function releaseUnanswered(request: FastifyRequest): Promise<void> {
      if (request.idempotencyKey === null) return;
      await deleteKey(request.auth.storeId, request.idempotencyKey)
        .where('state', '=', 'in_progress')
        .execute();
    }

    // Only operations marked idempotent carry these hooks, so no other request pays for them.
    app.addHook('onRoute', (route) => {
      if (!route.config?.idempotent) return;
      route.preHandler = [...asArray(route.preHandler), claimOrReplay];
      route.onSend = [...asArray(route.onSend), recordAnswer];
      route.onResponse = [...asArray(route.onResponse), releaseUnanswered];
    });
  },
);

/** Forgets keys past their 24 hours; run periodically by the maintenance loop. */
export async function purgeExpiredIdempotencyKeys(db: Kysely<Database>): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('expires_at', '<=', nowIso())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
