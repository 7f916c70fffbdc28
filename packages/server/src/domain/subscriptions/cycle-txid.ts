/**
 * The txid of a cycle's charge (cobr), the one derivation in the service: `c` + the subscription id's
 * 24 random characters + the cycle (4 digits), 29 characters within the standard's
 * `[a-zA-Z0-9]{26,35}`. Derived, never random, so a retried `PUT /cobr/{txid}` (a crash between the
 * call and our write, a second scheduler) is the same cobr, never a second one.
 */
export function cycleTxid(subscriptionId: string, cycle: number): string {
  return `c${subscriptionId.replace(/^sub_/, '')}${String(cycle).padStart(4, '0')}`;
}
