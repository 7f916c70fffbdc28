import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import { findActiveKeyByHash, hashApiKey, looksLikeApiKey } from '../api-keys/api-keys.js';
import type { KeyMode } from '../api-keys/api-keys.js';
import type { Scope } from '../api-keys/scopes.js';
import type { Database } from '../db/schema.js';
import { ApiError } from './api-error.js';
import { authFailureLimit } from './auth-failures.js';

export interface AuthContext {
  keyId: string;
  /** The key's public prefix (`sk_live_abc1…`), how the owners' audit log names it; never the secret. */
  prefix: string;
  storeId: string;
  mode: KeyMode;
  livemode: boolean;
  scopes: ReadonlySet<Scope>;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
  interface FastifyContextConfig {
    /** The scope an operation needs; routes without one (and not `public`) are refused. */
    scope?: Scope;
    /** Served without an API key (the OpenAPI document). */
    public?: boolean;
  }
}

export interface AuthOptions {
  db: Kysely<Database>;
  /** Failed authentications a minute per client IP before 429. */
  failuresPerMinute: number;
  /** Shared counters across nodes when set; in-process otherwise. */
  redis: Redis | null;
  /**
   * How long a key lookup is trusted. Keeps the database off the hot path in steady state while a
   * revoked key stops working on every node within this time (the promise is 5 s).
   */
  cacheTtlMs: number;
}

const unauthorized = (message: string) =>
  new ApiError(401, 'unauthorized', message, null, { 'WWW-Authenticate': 'Bearer realm="storefront"' });

const MAX_CACHED_KEYS = 10_000;

interface CachedKey {
  expiresAt: number;
  value: Promise<AuthContext | null>;
  /** Set once the lookup answered: whether the key was an active one. */
  valid?: boolean;
}

/** Caches by key hash (never the key itself); concurrent misses for one key share one query. */
class KeyCache {
  private readonly entries = new Map<string, CachedKey>();

  constructor(private readonly options: AuthOptions) {}

  /**
   * Whether the key may be looked up while its address is held back for failed authentications:
   * the cache answers for it without the database, or it was an active key at its last lookup.
   */
  spares(keyHash: string): boolean {
    const entry = this.entries.get(keyHash);
    return entry !== undefined && (entry.expiresAt > Date.now() || entry.valid === true);
  }

  lookup(keyHash: string): Promise<AuthContext | null> {
    const now = Date.now();
    const hit = this.entries.get(keyHash);
    if (hit && hit.expiresAt > now) return hit.value;
    if (this.entries.size >= MAX_CACHED_KEYS) this.entries.clear();
    const entry: CachedKey = { expiresAt: now + this.options.cacheTtlMs, value: this.load(keyHash) };
    this.entries.set(keyHash, entry);
    entry.value.then(
      (auth) => (entry.valid = auth !== null),
      // A failed lookup (database down) must not be remembered.
      () => this.entries.delete(keyHash),
    );
    return entry.value;
  }

  private async load(keyHash: string): Promise<AuthContext | null> {
    const key = await findActiveKeyByHash(this.options.db, keyHash);
    if (!key) return null;
    return {
      keyId: key.id,
      prefix: key.prefix,
      storeId: key.store_id,
      mode: key.mode,
      livemode: key.mode === 'live',
      scopes: new Set(key.scopes),
    };
  }
}

function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (!header) throw unauthorized('No API key provided. Send it as "Authorization: Bearer <API_KEY>".');
  const match = /^Bearer +(\S+)$/i.exec(header.trim());
  if (!match) throw unauthorized('Malformed Authorization header. Use "Authorization: Bearer <API_KEY>".');
  return match[1]!;
}

/** Authentication (401) then scope (403), both before validation, in the documented check order. */
export const authPlugin = fp<AuthOptions>(async (app: FastifyInstance, options) => {
  const cache = new KeyCache(options);
  // Wrong keys are counted per address: guessing is throttled, and so are the lookups it would cost.
  const failures = authFailureLimit(options.failuresPerMinute, options.redis, app.log);
  app.addHook('onClose', async () => failures.close());
  app.decorateRequest('auth', null as unknown as AuthContext);

  const refuse = async (ip: string) => {
    await failures.countFailure(ip);
    throw unauthorized('Invalid API key provided.');
  };

  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    if (config.public || request.is404) return;
    const token = bearerToken(request);
    if (!looksLikeApiKey(token)) return refuse(request.ip);
    const keyHash = hashApiKey(token);
    if (!cache.spares(keyHash)) await failures.refuseIfExhausted(request.ip);
    const auth = await cache.lookup(keyHash);
    if (!auth) return refuse(request.ip);
    request.auth = auth;
    if (!config.scope || !auth.scopes.has(config.scope)) {
      throw new ApiError(
        403,
        'insufficient_scope',
        `This API key lacks the scope this operation needs: ${config.scope ?? 'none defined'}.`,
      );
    }
  });
});
