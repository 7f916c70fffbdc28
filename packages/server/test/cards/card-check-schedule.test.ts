import { describe, expect, it } from 'vitest';
import { nextCardCheckAt } from '../../src/domain/card-payments/check-schedule.js';

const CREATED = '2026-03-01T12:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(CREATED) + ms);
const offsetOf = (next: string | null) => (next === null ? null : Date.parse(next) - Date.parse(CREATED));

describe('when an undecided live card payment is read back at its PSP', () => {
  it('15 s, 1 min and 5 min after it was made, then every 5 minutes', () => {
    expect(offsetOf(nextCardCheckAt(CREATED, at(0)))).toBe(15_000);
    expect(offsetOf(nextCardCheckAt(CREATED, at(15_000)))).toBe(60_000);
    expect(offsetOf(nextCardCheckAt(CREATED, at(59_999)))).toBe(60_000);
    expect(offsetOf(nextCardCheckAt(CREATED, at(60_000)))).toBe(300_000);
    expect(offsetOf(nextCardCheckAt(CREATED, at(300_000)))).toBe(600_000);
    expect(offsetOf(nextCardCheckAt(CREATED, at(601_000)))).toBe(900_000);
  });

  it('for 24 hours, then never again', () => {
    const day = 24 * 60 * 60_000;
    expect(offsetOf(nextCardCheckAt(CREATED, at(day - 1)))).toBe(day);
    expect(nextCardCheckAt(CREATED, at(day))).toBeNull();
  });

  it('on a shorter schedule when one is configured (STOREFRONT_CARD_RECONCILE_SCHEDULE), its last step repeating', () => {
    expect(offsetOf(nextCardCheckAt(CREATED, at(0), [150, 300]))).toBe(150);
    expect(offsetOf(nextCardCheckAt(CREATED, at(150), [150, 300]))).toBe(300);
    expect(offsetOf(nextCardCheckAt(CREATED, at(300), [150, 300]))).toBe(600);
  });
});
