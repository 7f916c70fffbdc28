import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nextCardCheckAt } from '../../src/domain/card-payments/check-schedule.js';
import { loadConfig } from '../../src/platform/config/config.js';

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

describe('STOREFRONT_CARD_RECONCILE_SCHEDULE', () => {
  const sqlite = () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'sf-card-config-')), 'db.sqlite')}`;

  it('defaults to 15s,1m,5m and takes durations, refusing what is not one', () => {
    expect(loadConfig({ DATABASE_URL: sqlite() }).cardReconcileScheduleMs).toEqual([15_000, 60_000, 300_000]);
    const config = loadConfig({ DATABASE_URL: sqlite(), STOREFRONT_CARD_RECONCILE_SCHEDULE: '150ms,2s' });
    expect(config.cardReconcileScheduleMs).toEqual([150, 2000]);
    expect(() =>
      loadConfig({ DATABASE_URL: sqlite(), STOREFRONT_CARD_RECONCILE_SCHEDULE: '15s,later' }),
    ).toThrow(/STOREFRONT_CARD_RECONCILE_SCHEDULE/);
  });
});
