import type { RequestCore } from '../core/request.js';

/** Base of the resource classes: they describe requests and leave sending them to the core. */
export abstract class APIResource {
  protected readonly core: RequestCore;

  constructor(core: RequestCore) {
    this.core = core;
  }
}
