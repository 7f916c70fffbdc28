/** How many live-status streams may be open at once: per order token, per client IP, per process. */
export interface StreamLimits {
  perToken: number;
  perIp: number;
  perProcess: number;
}

/**
 * Counts open streams so no client can hold more than its share of this process's sockets (each open
 * stream is a file descriptor for as long as it lasts). A slot is taken before a stream starts and
 * given back when it ends.
 */
export class StreamSlots {
  private readonly byToken = new Map<string, number>();
  private readonly byIp = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: StreamLimits) {}

  /** A slot for one more stream on this order token from this IP, or null when a limit is reached; the returned function gives it back (once). */
  take(token: string, ip: string): (() => void) | null {
    if (
      this.total >= this.limits.perProcess ||
      (this.byToken.get(token) ?? 0) >= this.limits.perToken ||
      (this.byIp.get(ip) ?? 0) >= this.limits.perIp
    ) {
      return null;
    }
    this.total++;
    add(this.byToken, token, 1);
    add(this.byIp, ip, 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.total--;
      add(this.byToken, token, -1);
      add(this.byIp, ip, -1);
    };
  }
}

/** Keeps only keys with a count: a map of every IP ever seen would grow without end. */
function add(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next === 0) counts.delete(key);
  else counts.set(key, next);
}
