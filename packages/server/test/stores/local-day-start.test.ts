import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, localDate, localDayStart } from '../../src/platform/values/local-date.js';

describe("localDayStart: the instant a store's day begins in its time zone", () => {
  it.each([
    ['2026-11-25', 'America/Sao_Paulo', '2026-11-25T03:00:00.000Z'],
    ['2026-11-25', 'America/Manaus', '2026-11-25T04:00:00.000Z'],
    ['2026-11-25', 'America/Noronha', '2026-11-25T02:00:00.000Z'],
    ['2026-11-25', 'UTC', '2026-11-25T00:00:00.000Z'],
    ['2026-11-25', 'Asia/Kolkata', '2026-11-24T18:30:00.000Z'],
    // Daylight saving: New York's day of the spring change is 23 hours long, of the autumn one 25.
    ['2026-03-08', 'America/New_York', '2026-03-08T05:00:00.000Z'],
    ['2026-03-09', 'America/New_York', '2026-03-09T04:00:00.000Z'],
    ['2026-11-01', 'America/New_York', '2026-11-01T04:00:00.000Z'],
    ['2026-11-02', 'America/New_York', '2026-11-02T05:00:00.000Z'],
    // São Paulo's last change skipped midnight: that day began at 01:00 local, 03:00 UTC.
    ['2018-11-04', 'America/Sao_Paulo', '2018-11-04T03:00:00.000Z'],
    // A zone this Node does not know counts in São Paulo's.
    ['2026-11-25', 'Nowhere/Atlantis', '2026-11-25T03:00:00.000Z'],
  ])('%s in %s begins at %s', (date, zone, instant) => {
    expect(localDayStart(date, zone)).toBe(instant);
  });

  it('is the first instant of that local day, and the one before it is the day before', () => {
    const zones = [
      'America/Sao_Paulo',
      'America/Manaus',
      'America/Rio_Branco',
      'America/New_York',
      'Europe/London',
      'Australia/Lord_Howe',
    ];
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2015, 0, 1), max: Date.UTC(2035, 0, 1) }),
        fc.constantFrom(...zones),
        (instant, zone) => {
          const date = new Date(instant).toISOString().slice(0, 10);
          const start = Date.parse(localDayStart(date, zone));
          expect(localDate(start, zone)).toBe(date);
          expect(localDate(start - 1, zone)).toBe(addDays(date, -1));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
