import { describe, expect, it } from 'vitest';
import { firstCheckAt, nextCheckAt, nextRefundCheckAt } from '../../src/pix/live/reconcile-schedule.js';

const created = '2026-11-24T10:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(created) + ms);
const iso = (ms: number) => at(ms).toISOString();
const MIN = 60_000;

describe('the live Pix reconcile schedule', () => {
  const expires = iso(60 * MIN); // a charge of one hour

  it('checks 15 s, 1 min and 5 min after creation, then every 5 min', () => {
    expect(firstCheckAt(at(0))).toBe(iso(15_000));
    expect(nextCheckAt(created, expires, at(15_000))).toBe(iso(MIN));
    expect(nextCheckAt(created, expires, at(MIN))).toBe(iso(5 * MIN));
    expect(nextCheckAt(created, expires, at(5 * MIN))).toBe(iso(10 * MIN));
    expect(nextCheckAt(created, expires, at(10 * MIN + 1))).toBe(iso(15 * MIN));
    // A check pulled forward by a callback returns to the same grid.
    expect(nextCheckAt(created, expires, at(2 * MIN + 7))).toBe(iso(5 * MIN));
  });

  it('stops 10 minutes after expiry: the last check at expiry + 10 min, none after', () => {
    expect(nextCheckAt(created, expires, at(65 * MIN))).toBe(iso(70 * MIN));
    expect(nextCheckAt(created, expires, at(70 * MIN))).toBeNull();
  });

  it('refunds follow the same steps from their request, with no end', () => {
    expect(nextRefundCheckAt(created, at(0))).toBe(iso(15_000));
    expect(nextRefundCheckAt(created, at(30 * 24 * 60 * MIN))).toBe(iso(30 * 24 * 60 * MIN + 5 * MIN));
  });
});
