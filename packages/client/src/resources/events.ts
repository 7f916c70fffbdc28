import type { RequestOptions } from '../core/options.js';
import type { PagePromise } from '../core/pagination.js';
import { path } from '../core/path.js';
import type { Event, EventListParams } from '../types/event.js';
import { APIResource } from './resource.js';

/** Past events, to reconcile what a receiver missed: `/events`. */
export class Events extends APIResource {
  async retrieve(id: string, options?: RequestOptions): Promise<Event> {
    return this.core.request({ method: 'GET', path: path`/events/${id}`, options });
  }

  list(params?: EventListParams, options?: RequestOptions): PagePromise<Event> {
    return this.core.list('/events', params, options);
  }
}
