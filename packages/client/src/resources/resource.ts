import type { RequestCore } from '../core/request.js';

/**
 * Base of the resource classes: they describe requests and leave sending them to the core.
 * Their methods are async so that a bad argument (an empty id) rejects like any other failure.
 */
export abstract class APIResource {
  protected readonly core: RequestCore;

  constructor(core: RequestCore) {
    this.core = core;
  }
}
