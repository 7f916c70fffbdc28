import { describe, expect, it } from 'vitest';
import {
  firstCheckAt,
  nextAuthorisationCheckAt,
  nextCheckAt,
  nextCycleCheckAt,
  nextRefundCheckAt,
} from '../../src/domain/pix/live/reconcile-schedule.js';

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

describe('the Pix Automático reconcile schedule', () => {
  const HOUR = 60 * MIN;
  // Sent 5 days before a due date of 2026-11-29 (00:00 in Brasília is 03:00 UTC).
  const sent = created;
  const due = '2026-11-29';
  const dueAt = Date.parse('2026-11-29T03:00:00.000Z') - Date.parse(created);

  it('a cycle charge: 15 s, 1 min, 5 min after it was sent, then every 6 hours until its due date', () => {
    expect(nextCycleCheckAt(sent, due, at(0))).toBe(iso(15_000));
    expect(nextCycleCheckAt(sent, due, at(15_000))).toBe(iso(MIN));
    expect(nextCycleCheckAt(sent, due, at(MIN))).toBe(iso(5 * MIN));
    expect(nextCycleCheckAt(sent, due, at(5 * MIN))).toBe(iso(5 * MIN + 6 * HOUR));
    // The last look before the due date lands on it, not up to 6 hours after.
    expect(nextCycleCheckAt(sent, due, at(dueAt - HOUR))).toBe(iso(dueAt));
  });

  it('from its due date every 30 minutes, the last at 8 days past it, none after', () => {
    expect(nextCycleCheckAt(sent, due, at(dueAt))).toBe(iso(dueAt + 30 * MIN));
    const end = dueAt + 8 * 24 * HOUR;
    expect(nextCycleCheckAt(sent, due, at(end - 30 * MIN))).toBe(iso(end));
    expect(nextCycleCheckAt(sent, due, at(end - 29 * MIN))).toBeNull();
  });

  it('an authorisation is read once a day', () => {
    expect(nextAuthorisationCheckAt(at(0))).toBe(iso(24 * HOUR));
  });
});
