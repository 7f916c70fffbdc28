import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Kysely } from 'kysely';
import { reusedInsert, reusedQuery } from '../db/reused-query.js';
import type { Database } from '../db/schema.js';
import type { KeyMode } from '../api-keys/api-keys.js';
import { createSecretBox } from '../values/secret-box.js';
import type { SecretBox } from '../values/secret-box.js';
import { isoAfter, nowIso } from '../values/time.js';
import { ApiError, invalidRequest } from './api-error.js';
import { CONTROL_CHARACTER } from './text-patterns.js';

/** `unknown`: a key kept before keys had a mode; it is refused until it expires, never replayed. */
type KeyRowMode = KeyMode | 'unknown';

interface IdempotencyKeysTable {
  store_id: string;
  mode: KeyRowMode;
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
    /** The Idempotency-Key this request runs under, once it is known to be the first with it. */
    idempotencyKey: string | null;
    /** Its answer, still to be stored (internal to this plugin and `sendCreation`). */
    idempotentAnswer: PendingAnswer | null;
  }
}

/**
 * Called by a creation inside its transaction, with the object it answers: the answer is then stored
 * by the same commit as the change. Throws (rolling the change back) when a concurrent request with
 * the same key committed first. Called before the writes a concurrent duplicate could collide with
 * (a shared txid or external_id), the duplicate waits on the key itself; called last, its collision
 * is still answered from the winner's row by `sendCreation`.
 */
export type KeepAnswer = (trx: Kysely<Database>, body: unknown) => Promise<void>;

interface PendingAnswer {
  storeId: string;
  /** The mode of the API key: a key used in test mode and the same key in live mode are two keys. */
  mode: KeyMode;
  key: string;
  fingerprint: string;
  /** Kept answers can hold secrets (a webhook endpoint's signing secret): sealed at rest like them. */
  box: SecretBox;
  /** Set once the answer is stored: nothing is left for onSend to do. */
  stored: boolean;
}

const HEADER = 'idempotency-key';
const KEEP_MS = 24 * 60 * 60 * 1000;
/** A first request still "in progress" after this long died with its process; its key is freed. */
const ABANDONED_AFTER_MS = 60 * 1000;
const JSON_TYPE = 'application/json; charset=utf-8';

function asArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

const conflict = (message: string) => new ApiError(409, 'idempotency_conflict', message, 'Idempotency-Key');
const inFlightConflict = () =>
  conflict('A request with this Idempotency-Key is still being processed. Retry later.');

function fingerprintOf(request: FastifyRequest): string {
  const path = request.url.split('?')[0];
  return createHash('sha256')
    .update(`${request.method} ${path}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex');
}

/** Bound to its row, so a sealed answer copied to another key (or mode) does not open there. */
const replayBinding = (row: Pick<IdempotencyKeysTable, 'store_id' | 'mode' | 'key'>) =>
  `idempotency:${row.store_id}:${row.mode}:${row.key}`;

function replay(reply: FastifyReply, row: IdempotencyKeysTable, box: SecretBox): FastifyReply {
  const stored = row.response_body ?? '';
  // Answers kept before they were sealed are JSON, which never starts like a sealed value.
  const body = stored.startsWith('v1.') ? box.open(stored, replayBinding(row)) : stored;
  return reply
    .code(row.response_status ?? 200)
    .header('Idempotent-Replayed', 'true')
    .type(JSON_TYPE)
    .send(body);
}

/** What an earlier request with this key answered: a replay, or 409 for another body or one in flight. */
function answerFrom(reply: FastifyReply, row: IdempotencyKeysTable, answer: PendingAnswer): FastifyReply {
  if (row.mode !== answer.mode) {
    throw conflict(
      'This Idempotency-Key was used before keys were kept per mode (test or live). Use a new key.',
    );
  }
  if (row.fingerprint !== answer.fingerprint) {
    throw conflict('This Idempotency-Key was already used with another request body or path.');
  }
  if (row.state === 'in_progress') throw inFlightConflict();
  return replay(reply, row, answer.box);
}

const selectKey = reusedQuery(
  'select idempotency key',
  (db: Kysely<Database>, storeId: string, mode: KeyMode, key: string) =>
    db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('mode', 'in', [mode, 'unknown'])
      .where('key', '=', key),
);

/**
 * The live row of a key in a mode (or one kept before modes), if any: an expired one, or one abandoned
 * by a dead process, is freed.
 */
async function liveRow(
  db: Kysely<Database>,
  { storeId, mode, key }: Pick<PendingAnswer, 'storeId' | 'mode' | 'key'>,
): Promise<IdempotencyKeysTable | undefined> {
  const row = (await selectKey(db, storeId, mode, key)).rows[0];
  if (!row) return undefined;
  const now = new Date();
  const expired = row.expires_at <= now.toISOString();
  const abandoned = row.state === 'in_progress' && row.created_at <= isoAfter(-ABANDONED_AFTER_MS, now);
  if (!expired && !abandoned) return row;
  await db
    .deleteFrom('idempotency_keys')
    .where('store_id', '=', storeId)
    .where('mode', '=', row.mode)
    .where('key', '=', key)
    .where('created_at', '=', row.created_at)
    .execute();
  return undefined;
}

/** Thrown by `keep` to roll a creation back: a concurrent request with the key committed first. */
class KeyTakenMeanwhile extends Error {}

/**
 * Idempotency-Key on creations. A key is remembered by the row holding its answer, written by the
 * creation's own transaction when the route answers through `sendCreation` (every idempotent route
 * does), or right after it is sent for an answer no transaction kept (a 4xx, an existing charge). The unique (store, mode, key) index decides races between processes: a
 * second request that reaches it finds the first's answer and replays it. Within a process, a
 * request whose key is still in flight is 409 at once. Same key and body: the stored answer is
 * replayed; another body or path: 409. 5xx answers are not kept, so a retry runs again.
 */
export const idempotencyPlugin = fp<{ db: Kysely<Database>; secret: string }>(
  async (app: FastifyInstance, { db, secret }) => {
    app.decorateRequest('idempotencyKey', null);
    const box = createSecretBox(secret);
    app.decorateRequest('idempotentAnswer', null);
    /** Keys of this process's requests between their check and their answer, with their start time. */
    const inFlight = new Map<string, number>();
    const flightOf = (answer: PendingAnswer) => `${answer.storeId}\n${answer.mode}\n${answer.key}`;

    async function checkKey(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
      const key = request.headers[HEADER];
      if (key === undefined) return;
      if (typeof key !== 'string' || key.length < 1 || key.length > 255 || CONTROL_CHARACTER.test(key)) {
        throw invalidRequest(
          'Idempotency-Key must be 1 to 255 characters, none of them a control character.',
          'Idempotency-Key',
        );
      }
      const answer: PendingAnswer = {
        storeId: request.auth.storeId,
        mode: request.auth.mode,
        key,
        fingerprint: fingerprintOf(request),
        box,
        stored: false,
      };
      const flight = flightOf(answer);
      const since = inFlight.get(flight);
      if (since !== undefined && Date.now() - since < ABANDONED_AFTER_MS) throw inFlightConflict();
      inFlight.set(flight, Date.now());
      try {
        const row = await liveRow(db, answer);
        if (row) {
          inFlight.delete(flight);
          return answerFrom(reply, row, answer); // an early answer: the handler does not run
        }
      } catch (error) {
        inFlight.delete(flight);
        throw error;
      }
      request.idempotencyKey = key;
      request.idempotentAnswer = answer;
    }

    // An answer no creation kept is stored once serialized, exactly as sent (4xx included, 5xx not).
    async function storeSentAnswer(
      request: FastifyRequest,
      reply: FastifyReply,
      payload: unknown,
    ): Promise<unknown> {
      const answer = request.idempotentAnswer;
      if (answer === null) return payload;
      request.idempotentAnswer = null;
      try {
        if (!answer.stored && reply.statusCode < 500) {
          await insertAnswer(db, answer, reply.statusCode, String(payload ?? ''));
        }
      } finally {
        inFlight.delete(flightOf(answer));
      }
      return payload;
    }

    // A request that never reached onSend (client gone) must not hold its key.
    async function release(request: FastifyRequest): Promise<void> {
      const answer = request.idempotentAnswer;
      if (answer !== null) inFlight.delete(flightOf(answer));
    }

    // Only operations marked idempotent carry these hooks, so no other request pays for them.
    app.addHook('onRoute', (route) => {
      if (!route.config?.idempotent) return;
      route.preHandler = [...asArray(route.preHandler), checkKey];
      route.onSend = [...asArray(route.onSend), storeSentAnswer];
      route.onResponse = [...asArray(route.onResponse), release];
    });
  },
);

const insertAnswerRow = reusedInsert(
  'insert idempotency answer',
  (db: Kysely<Database>, row: IdempotencyKeysTable) =>
    db
      .insertInto('idempotency_keys')
      .values(row)
      .onConflict((oc) => oc.columns(['store_id', 'mode', 'key']).doNothing()),
);

/** Stores an answer; false when the key already has one (a concurrent request committed first). */
async function insertAnswer(
  db: Kysely<Database>,
  answer: PendingAnswer,
  status: number,
  body: string,
): Promise<boolean> {
  const now = new Date();
  const where = { store_id: answer.storeId, mode: answer.mode, key: answer.key };
  const result = await insertAnswerRow(db, {
    ...where,
    fingerprint: answer.fingerprint,
    state: 'done',
    response_status: status,
    response_body: answer.box.seal(body, replayBinding(where)),
    created_at: now.toISOString(),
    expires_at: isoAfter(KEEP_MS, now),
  });
  return Number(result.numAffectedRows ?? 0n) > 0;
}

/**
 * Runs a creation and sends its answer with `status`. With an Idempotency-Key, `create` hands `keep`
 * to its service, which calls it inside its transaction, so the change, its event and the
 * stored answer are one commit. The text sent is the text stored. A creation may set another status
 * for an answer it does not keep (e.g. an existing charge, 200); that one is stored when sent.
 */
export async function sendCreation(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  create: (keep: KeepAnswer) => Promise<unknown>,
): Promise<FastifyReply> {
  const answer = request.idempotentAnswer;
  const kept: { body?: unknown; payload?: string } = {};
  const keep: KeepAnswer = async (trx, body) => {
    if (answer === null) return;
    const payload = String(reply.code(status).serialize(body));
    if (!(await insertAnswer(trx, answer, status, payload))) throw new KeyTakenMeanwhile();
    Object.assign(kept, { body, payload });
  };
  reply.code(status);
  let body: unknown;
  try {
    body = await create(keep);
  } catch (error) {
    if (answer === null) throw error;
    // A request with this key in another process may have committed meanwhile: then its answer is this
    // one's too, whether this one found the key taken or collided with its change (a slug, a txid).
    const taken = error instanceof KeyTakenMeanwhile;
    const row = await liveRow(request.server.db, answer).catch((lookup: unknown) => {
      throw taken ? lookup : error;
    });
    if (!row) {
      if (taken) throw inFlightConflict();
      throw error;
    }
    answer.stored = true; // by the request that won
    return answerFrom(reply, row, answer);
  }
  if (answer === null || kept.payload === undefined || kept.body !== body) return reply.send(body);
  answer.stored = true;
  return reply.code(status).type(JSON_TYPE).send(kept.payload);
}

/** Forgets keys past their 24 hours; run periodically by the maintenance loop. */
export async function purgeExpiredIdempotencyKeys(db: Kysely<Database>): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('expires_at', '<=', nowIso())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
