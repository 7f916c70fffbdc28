import type { RequestOptions } from '../core/options.js';
import type { PagePromise } from '../core/pagination.js';
import { path } from '../core/path.js';
import type {
  DeletedWebhookEndpoint,
  WebhookDelivery,
  WebhookDeliveryListParams,
  WebhookDeliveryRetry,
  WebhookEndpoint,
  WebhookEndpointCreateParams,
  WebhookEndpointListParams,
  WebhookEndpointRotateSecretParams,
  WebhookEndpointUpdateParams,
  WebhookEndpointWithSecret,
  WebhookTest,
} from '../types/webhook-endpoint.js';
import { APIResource } from './resource.js';

/** Webhook endpoints and their delivery history: `/webhooks`. */
export class WebhookEndpoints extends APIResource {
  /** The answer is the only place the signing `secret` ever appears. */
  async create(
    params: WebhookEndpointCreateParams,
    options?: RequestOptions,
  ): Promise<WebhookEndpointWithSecret> {
    return this.core.request({ method: 'POST', path: '/webhooks', body: params, options });
  }

  async retrieve(id: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.core.request({ method: 'GET', path: path`/webhooks/${id}`, options });
  }

  async update(
    id: string,
    params: WebhookEndpointUpdateParams,
    options?: RequestOptions,
  ): Promise<WebhookEndpoint> {
    return this.core.request({ method: 'PATCH', path: path`/webhooks/${id}`, body: params, options });
  }

  list(params?: WebhookEndpointListParams, options?: RequestOptions): PagePromise<WebhookEndpoint> {
    return this.core.list('/webhooks', params, options);
  }

  /** Removes the endpoint; its delivery history is kept. */
  async del(id: string, options?: RequestOptions): Promise<DeletedWebhookEndpoint> {
    return this.core.request({ method: 'DELETE', path: path`/webhooks/${id}`, options });
  }

  /**
   * Gives the endpoint a new signing secret (in the answer, shown only there). Until the old one
   * expires (`expires_in_hours`, default 24, 0 = at once) deliveries carry a signature for each, so
   * `verifyWebhook` accepts them with either secret. A new rotation ends any earlier overlap.
   */
  async rotateSecret(
    id: string,
    params: WebhookEndpointRotateSecretParams = {},
    options?: RequestOptions,
  ): Promise<WebhookEndpointWithSecret> {
    return this.core.request({
      method: 'POST',
      path: path`/webhooks/${id}/rotate_secret`,
      body: params,
      options,
    });
  }

  /** Queues a signed `webhook.test` event for this endpoint, which must be `active`. */
  async test(id: string, options?: RequestOptions): Promise<WebhookTest> {
    return this.core.request({ method: 'POST', path: path`/webhooks/${id}/test`, options });
  }

  /** The endpoint's last 20 delivery attempts, newest first. */
  listDeliveries(
    id: string,
    params?: WebhookDeliveryListParams,
    options?: RequestOptions,
  ): PagePromise<WebhookDelivery> {
    return this.core.list(() => path`/webhooks/${id}/deliveries`, params, options);
  }

  /** Sends that delivery's event to the endpoint again, now. */
  async retryDelivery(
    id: string,
    deliveryId: string,
    options?: RequestOptions,
  ): Promise<WebhookDeliveryRetry> {
    return this.core.request({
      method: 'POST',
      path: path`/webhooks/${id}/deliveries/${deliveryId}/retry`,
      options,
    });
  }
}
