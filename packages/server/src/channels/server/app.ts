import Fastify from 'fastify';
import { dispatchOnWrite } from '../../domain/webhooks/delivery/dispatch.js';
import { dispatchEventsOnWrite } from '../../platform/outbox/outbox.js';
import { processLogDestination } from '../../platform/config/process-log.js';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import { analyticsRoutes } from '../api/analytics-routes.js';
import { checkoutsRoutes } from '../api/checkouts-routes.js';
import { couponsRoutes } from '../api/coupons-routes.js';
import { DASHBOARD_PREFIX, dashboardRoutes } from '../dashboard/dashboard-routes.js';
import { docsRoutes } from '../api/docs-routes.js';
import { homeRoutes } from '../api/home-routes.js';
import type { Config, ConnectionLimits } from '../../platform/config/config.js';
import type { PoolStats } from '../../platform/db/database.js';
import type { MailerOptions } from '../../platform/mail/smtp-mailer.js';
import type { Database } from '../../platform/db/schema.js';
import { AccessLog } from '../../platform/http/access-log.js';
import { authPlugin } from '../../platform/http/auth.js';
import { bodyParsingPlugin } from '../../platform/http/body-parsing.js';
import { errorsPlugin } from '../../platform/http/errors.js';
import { clientErrorHandler, frameworkErrors } from '../../platform/http/framework-errors.js';
import { faviconRoutes } from '../../platform/html/favicon.js';
import { healthRoutes } from '../../platform/http/health-routes.js';
import { idempotencyPlugin } from '../../platform/http/idempotency.js';
import { API_PREFIX, openapiPlugin } from '../../platform/http/openapi.js';
import { paginationPlugin } from '../../platform/http/pagination.js';
import { PURCHASE_PAGE_PREFIX, purchasePageRoutes } from '../purchase-page/purchase-page-routes.js';
import { metricsPlugin } from '../api/metrics-routes.js';
import { productsRoutes } from '../api/products-routes.js';
import { rateLimitPlugin } from '../../platform/http/rate-limit.js';
import { storableTextPlugin } from '../../platform/http/storable-text.js';
import { validatorCompiler } from '../../platform/http/validation.js';
import type { PaymentProviders } from '../../domain/payments/payment-providers.js';
import { openPaymentProviders } from './payment-providers.js';
import { pixCallbackRoutes } from '../api/pix-callback-routes.js';
import { cardCallbackRoutes } from '../api/card-callback-routes.js';
import { markRecurringDue } from '../../flows/check-live-subscriptions.js';
import { pixChargesRoutes } from '../api/pix-charges-routes.js';
import { cardPaymentsRoutes } from '../api/card-payments-routes.js';
import { salesRoutes } from '../api/sales-routes.js';
import { ordersRoutes } from '../api/orders-routes.js';
import { storeRoutes } from '../api/store-routes.js';
import { subscriptionsRoutes } from '../api/subscriptions-routes.js';
import { prefixedId } from '../../platform/values/ids.js';
import { eventsRoutes } from '../api/events-routes.js';
import { webhookDeliveriesRoutes } from '../api/deliveries-routes.js';
import { webhookEndpointsRoutes } from '../api/endpoints-routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    db: Kysely<Database>;
    config: Config;
    payments: PaymentProviders;
  }
}

export interface AppDependencies {
  config: Config;
  db: Kysely<Database>;
  /** What routes charge, cancel and refund through (shared with the node's duties); default: the app's own. */
  payments?: PaymentProviders;
  redis?: Redis | null;
  /** pino options, or false to silence (tests). */
  logger?: boolean | Record<string, unknown>;
  /** How long an API key lookup is cached; a revoked key stops working within it. */
  authCacheTtlMs?: number;
  /** Database pool counters for GET /metrics (PostgreSQL). */
  poolStats?: () => PoolStats | null;
  /** GET /metrics text for the whole node when it runs several HTTP processes; default this process's. */
  renderMetrics?: () => Promise<string>;
  /** Extra TLS trust for e-mail the HTTP process sends itself (dashboard invites): a test server's CA. */
  mailerTls?: MailerOptions['tls'];
}

/** A number of hops as Fastify's typings take it: the first `hops` proxies from the socket are trusted. */
function trustProxyOption(
  trust: Config['trustProxy'],
): string[] | boolean | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}

/** Often enough that a headers or request timeout fires within a second (or a quarter of itself). */
function connectionsCheckingIntervalMs(limits: ConnectionLimits): number {
  return Math.min(1000, Math.max(25, Math.floor(limits.headersTimeoutMs / 4)));
}

/** Builds the whole HTTP service from its configuration and connections; it does not listen. */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const limits = deps.config.connections;
  const app = Fastify({
    logger: deps.logger ?? {
      level: deps.config.logLevel,
      // Keys and signatures never reach the logs.
      redact: ['req.headers.authorization', 'req.headers["idempotency-key"]'],
      stream: processLogDestination(),
    },
    genReqId: () => prefixedId('req'),
    // Behind a reverse proxy: the client's address and scheme from the proxies named here only.
    trustProxy: trustProxyOption(deps.config.trustProxy),
    requestIdHeader: false, // a client-sent id is never trusted as ours
    bodyLimit: 1024 * 1024,
    // A socket that sends nothing, or too slowly, is closed (408 once its headers are in).
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      // Node checks these two limits on a timer, every 30 s by default: a 20 s limit could take 50.
      connectionsCheckingInterval: connectionsCheckingIntervalMs(limits),
    },
    return503OnClosing: true,
    logController: new AccessLog(),
    ajv: { customOptions: { strict: false } },
    clientErrorHandler,
    frameworkErrors,
  });
  // Beyond this, a new connection is closed as soon as it is accepted: the descriptors stay available.
  app.server.maxConnections = limits.maxPerProcess;
  app.setValidatorCompiler(validatorCompiler);
  // Events recorded by its requests queue their webhook deliveries in their own transactions.
  dispatchEventsOnWrite(deps.db, dispatchOnWrite);
  app.decorate('db', deps.db);
  app.decorate('config', deps.config);
  // Opened here, the providers are the app's to close; given, they are the caller's.
  const payments = deps.payments ?? openPaymentProviders(deps.db, deps.config);
  app.decorate('payments', payments);
  if (!deps.payments) app.addHook('onClose', () => payments.close());

  app.addHook('onRequest', async (request, reply) => {
    reply.header('Request-Id', request.id);
  });
  // A request answered while the service stops is the connection's last: it is not kept alive idle.
  let stopping = false;
  app.addHook('preClose', async () => {
    stopping = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (stopping) reply.header('Connection', 'close');
  });
  await app.register(errorsPlugin);
  if (deps.config.metricsToken) {
    await app.register(metricsPlugin, {
      token: deps.config.metricsToken,
      ...(deps.poolStats ? { poolStats: deps.poolStats } : {}),
      ...(deps.renderMetrics ? { render: deps.renderMetrics } : {}),
    });
  }
  await app.register(bodyParsingPlugin);
  await app.register(storableTextPlugin);
  await app.register(healthRoutes);
  // The description covers the v1 routes (its transform leaves the rest out); /docs renders it.
  await app.register(openapiPlugin);
  await app.register(docsRoutes);
  // The hosted purchase pages: public, outside the API prefix, with their own HTML errors.
  await app.register(purchasePageRoutes, { prefix: PURCHASE_PAGE_PREFIX, redis: deps.redis ?? null });
  // The merchant dashboard: its own sessions, CSRF and roles, HTML pages and errors.
  await app.register(dashboardRoutes, {
    prefix: DASHBOARD_PREFIX,
    redis: deps.redis ?? null,
    ...(deps.mailerTls ? { mailerTls: deps.mailerTls } : {}),
  });
  await app.register(homeRoutes);
  await app.register(faviconRoutes);
  // PSP callbacks live at the service root: the PSP knows no API key, the URL's token is the secret.
  await app.register(pixCallbackRoutes, { redis: deps.redis ?? null, recurring: markRecurringDue });
  await app.register(cardCallbackRoutes, { redis: deps.redis ?? null });

  await app.register(
    async (v1) => {
      await v1.register(authPlugin, {
        db: deps.db,
        cacheTtlMs: deps.authCacheTtlMs ?? 2000,
        failuresPerMinute: deps.config.authFailureRateLimitPerMinute,
        redis: deps.redis ?? null,
      });
      await v1.register(rateLimitPlugin, {
        perSecond: deps.config.rateLimitPerSecond,
        redis: deps.redis ?? null,
      });
      await v1.register(paginationPlugin, { secret: deps.config.secret });
      await v1.register(idempotencyPlugin, { db: deps.db, secret: deps.config.secret });

      v1.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => v1.swagger());
      await v1.register(checkoutsRoutes);
      await v1.register(productsRoutes);
      await v1.register(pixChargesRoutes);
      await v1.register(cardPaymentsRoutes);
      await v1.register(salesRoutes);
      await v1.register(webhookEndpointsRoutes);
      await v1.register(webhookDeliveriesRoutes);
      await v1.register(eventsRoutes);
      await v1.register(couponsRoutes);
      await v1.register(ordersRoutes);
      await v1.register(storeRoutes);
      await v1.register(analyticsRoutes);
      await v1.register(subscriptionsRoutes);
    },
    { prefix: API_PREFIX },
  );

  return app;
}
