import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { findCardProviderByCallbackToken } from '../../domain/payments/card-settings/card-provider-settings.js';
import type { CardNotification } from '../../domain/payments/card-provider.js';
import { receiveCardNotification } from '../../flows/receive-card-notification.js';
import { ApiError, invalidRequest } from '../../platform/http/api-error.js';
import { jsonShapeRefusal } from '../../platform/http/json-shape.js';
import { keyedRateLimit } from '../../platform/http/keyed-rate-limit.js';

/** A PSP's notification is a few kilobytes (Pagar.me sends the whole order); more is not one. */
const BODY_LIMIT = 64 * 1024;

export interface CardCallbackRoutesOptions {
  redis: Redis | null;
}

/** One value per name, as the PSP sent it (a repeated one: its first). */
function flat(values: Record<string, unknown>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') result[name] = first;
  }
  return result;
}

function notificationOf(request: FastifyRequest): CardNotification {
  return {
    query: flat((request.query ?? {}) as Record<string, unknown>),
    // Node already lower-cases header names.
    headers: flat(request.headers as Record<string, unknown>),
    body: typeof request.body === 'string' ? request.body : '',
  };
}

/**
 * `POST /callbacks/card/<token>`: a card PSP's notification for the store and mode whose callback
 * token the URL carries (Mercado Pago also names the payment in the query: `?data.id=…&type=payment`).
 * Persisted and answered 200 at once, never waiting for the PSP; then, in the background, the
 * payment it names is read back from the PSP and applied. Its own words are never trusted. A Mercado
 * Pago signature (`x-signature`) that does not verify, when the store set a webhook secret, is
 * answered 401 and changes nothing: that check is made before answering.
 */
export async function cardCallbackRoutes(
  app: FastifyInstance,
  options: CardCallbackRoutesOptions,
): Promise<void> {
  const { db, config, payments } = app;
  // Per store and mode (its token), as for Pix callbacks: a PSP sends one per change of a payment, far
  // below this, and a leaked token cannot fill the database. A PSP retries a 429; the reconciler
  // reads undecided payments on its own anyway.
  const limit = keyedRateLimit(
    'card-callbacks',
    config.pixCallbackRateLimitPerMinute,
    options.redis,
    app.log,
  );
  // Read-backs still running when the service stops finish first (each records its outcome).
  const inFlight = new Set<Promise<void>>();
  app.addHook('onClose', async () => {
    await Promise.all(inFlight);
    await limit.close();
  });

  // The body is kept as the PSP sent it (its bytes are what a signature or the audit refers to); JSON
  // or not, empty or not, the adapter reads it. Its shape is still bounded before anything reads it.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
    const refusal = jsonShapeRefusal(body as string);
    if (refusal !== null) return done(invalidRequest(refusal), undefined);
    done(null, body);
  });

  const links = {
    mail: config,
    publicUrl: config.publicUrl,
    scheduleMs: config.cardReconcileScheduleMs,
  };

  app.post<{ Params: { token: string } }>(
    '/callbacks/card/:token',
    { schema: { hide: true }, bodyLimit: BODY_LIMIT },
    async (request, reply) => {
      const owner = await findCardProviderByCallbackToken(db, request.params.token);
      if (!owner) throw new ApiError(404, 'not_found', 'Unknown callback URL.');
      const wait = await limit.consume(`${owner.storeId} ${owner.livemode}`);
      if (wait !== null) {
        throw new ApiError(
          429,
          'rate_limited',
          `Too many callbacks for this store; retry after ${wait} s.`,
          null,
          {
            'Retry-After': String(wait),
          },
        );
      }
      const scope = { storeId: owner.storeId, livemode: owner.livemode };
      const received = await receiveCardNotification(db, payments, scope, notificationOf(request), links);
      const context = { store_id: owner.storeId, livemode: owner.livemode, provider: owner.provider };
      if (received === 'forged') {
        app.log.warn(context, 'card notification refused: its signature does not verify; nothing changes');
        throw new ApiError(401, 'unauthorized', 'The notification’s signature does not verify.');
      }
      const running = received
        .process()
        .then(({ outcome, cardPaymentId, error }) => {
          const line = { ...context, outcome, card_payment_id: cardPaymentId };
          if (error instanceof ApiError)
            app.log.info(
              { ...line, code: error.code, message: error.message },
              'card notification: read-back failed',
            );
          else if (error) app.log.error({ ...line, err: error }, 'card notification: read-back failed');
          else app.log.info(line, 'card notification read back from the PSP');
        })
        .catch((err: unknown) => app.log.error({ ...context, err }, 'card notification processing failed'))
        .finally(() => inFlight.delete(running));
      inFlight.add(running);
      return reply.code(200).send({ received: true });
    },
  );
}
