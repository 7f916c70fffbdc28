import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Kysely } from 'kysely';
import { findActiveKeyByHash, hashApiKey, looksLikeApiKey } from '../api-keys/api-keys.js';
import type { KeyMode } from '../api-keys/api-keys.js';
import type { Scope } from '../api-keys/scopes.js';
import type { Database } from '../db/schema.js';
import { ApiError } from './api-error.js';

export interface AuthContext {
  keyId: string;
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
  /**
   * How long a key lookup is trusted. Keeps the database off the hot path in steady state while a
   * revoked key stops working on every node within this time (the promise is 5 s).
   */
  cacheTtlMs: number;
}

const unauthorized = (message: string) =>
  new ApiError(401, 'unauthorized', message, null, { 'WWW-Authenticate': 'Bearer realm="storefront"' });

const MAX_CACHED_KEYS = 10_000;

/** Caches by key hash (never the key itself); concurrent misses for one key share one query. */
class KeyCache {
  private readonly entries = new Map<string, { expiresAt: number; value: Promise<AuthContext | null> }>();

  constructor(private readonly options: AuthOptions) {}

  lookup(keyHash: string): Promise<AuthContext | null> {
    const now = Date.now();
    const hit = this.entries.get(keyHash);
    if (hit && hit.expiresAt > now) return hit.value;
    if (this.entries.size >= MAX_CACHED_KEYS) this.entries.clear();
    const value = this.load(keyHash);
    this.entries.set(keyHash, { expiresAt: now + this.options.cacheTtlMs, value });
    // A failed lookup (database down) must not be remembered.
    value.catch(() => this.entries.delete(keyHash));
    return value;
  }

  private async load(keyHash: string): Promise<AuthContext | null> {
    const key = await findActiveKeyByHash(this.options.db, keyHash);
    if (!key) return null;
    return {
      keyId: key.id,
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
  app.decorateRequest('auth', null as unknown as AuthContext);

  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    if (config.public || request.is404) return;
    const token = bearerToken(request);
    const auth = looksLikeApiKey(token) ? await cache.lookup(hashApiKey(token)) : null;
    if (!auth) throw unauthorized('Invalid API key provided.');
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
