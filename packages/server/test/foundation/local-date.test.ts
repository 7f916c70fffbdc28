import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localDate, localDayStart } from '../../src/platform/values/local-date.js';

// São Paulo before 1914 was at its local mean time, -3:06:28: its midnights fell off the minute.
const ZONES = [
  'America/Sao_Paulo',
  'America/Manaus',
  'America/Noronha',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'UTC',
];
const formats = new Map(
  ZONES.map((zone) => [
    zone,
    new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }),
  ]),
);
const direct = (ms: number, zone: string) => formats.get(zone)!.format(ms);

describe('localDate', () => {
  it('is the zone’s calendar date for instants asked in any order, the same second or not (3,000 runs)', () => {
    const instant = fc.integer({ min: Date.UTC(1890, 0, 1), max: Date.UTC(2100, 0, 1) });
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        instant,
        fc.array(fc.integer({ min: -1500, max: 1500 }), { minLength: 1, maxLength: 8 }),
        (zone, start, steps) => {
          for (const ms of [start, ...steps.map((step) => start + step)]) {
            expect(localDate(ms, zone)).toBe(direct(ms, zone));
            expect(localDate(new Date(ms).toISOString(), zone)).toBe(direct(ms, zone));
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('turns over exactly at each local midnight, on and off the minute', () => {
    for (const [zone, day] of [
      ['America/Sao_Paulo', '1900-03-10'],
      ['America/Sao_Paulo', '2026-11-29'],
      ['Asia/Kathmandu', '2026-01-01'],
      ['Pacific/Chatham', '2026-04-05'],
    ] as const) {
      const midnight = Date.parse(localDayStart(day, zone));
      // The last millisecond of the day before, then the first of the day, in that order and back.
      for (const ms of [midnight - 1, midnight, midnight - 1, midnight + 999, midnight - 1000])
        expect(localDate(ms, zone), `${zone} ${new Date(ms).toISOString()}`).toBe(direct(ms, zone));
      expect(localDate(midnight, zone)).toBe(day);
    }
  });

  it('refuses an instant that is not one, as Intl does', () => {
    expect(() => localDate('not a date', 'UTC')).toThrow(RangeError);
  });
});
