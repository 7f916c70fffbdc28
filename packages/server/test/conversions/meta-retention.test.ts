import { expect, it } from 'vitest';
import { prefixedId } from '../../src/platform/values/ids.js';
import type { ConversionEventsTable } from '../../src/domain/conversions/conversion-event.js';
import { pruneOldRows } from '../../src/flows/retention.js';
import { describeEachDatabase } from '../support/test-api.js';

const DAY = 86_400_000;

/** Settled Meta conversion events go with retention like other transient records; pending ones stay. */
describeEachDatabase('Meta conversion events retention', (api) => {
  it('prunes sent and failed events past the window, keeps pending ones and recent ones', async () => {
    const { storeId } = await api.createStore();
    const at = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString();
    const row = (status: ConversionEventsTable['status'], daysAgo: number): ConversionEventsTable => ({
      id: prefixedId('cev'),
      store_id: storeId,
      kind: 'Purchase',
      event_id: prefixedId('sale'),
      status,
      attempts: 1,
      next_attempt_at: status === 'pending' ? at(-1) : null,
      lease: null,
      response_status: status === 'pending' ? 500 : 200,
      last_error: null,
      created_at: at(daysAgo),
      sent_at: null,
      settled_at: null,
    });
    const rows = [row('sent', 40), row('failed', 31), row('pending', 40), row('sent', 29)];
    await api.db.insertInto('conversion_events').values(rows).execute();
    const report = await pruneOldRows(api.db, { olderThanDays: 30 });
    expect(report.conversion_events).toBe(2);
    const left = await api.db
      .selectFrom('conversion_events')
      .select('id')
      .where('store_id', '=', storeId)
      .execute();
    expect(left.map((r) => r.id).sort()).toEqual([rows[2]!.id, rows[3]!.id].sort());
  });
});
