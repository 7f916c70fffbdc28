import fc from 'fast-check';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import type { TestApi } from '../support/test-api.js';
import { fromBool } from '../../src/platform/db/schema.js';
import { buildBrCode } from '../../src/platform/brcode/index.js';
import type { PixChargesTable } from '../../src/domain/pix/pix-charge-object.js';
import { prefixedId } from '../../src/platform/values/ids.js';
import { isoAfter, nowIso } from '../../src/platform/values/time.js';

// jsqr's typings declare `export default` over a UMD bundle; under NodeNext the function is one level down.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

/** Random BR Code payloads from these keys and names, with any amount and txid. */
export function brCodes(fields: {
  key: fc.Arbitrary<string>;
  name: fc.Arbitrary<string>;
  city: fc.Arbitrary<string>;
}): fc.Arbitrary<string> {
  const amountAndTxid = {
    cents: fc.integer({ min: 1, max: 100_000_000 }),
    txid: fc.stringMatching(/^[A-Za-z0-9]{1,25}$/),
  };
  return fc
    .record({ ...fields, ...amountAndTxid })
    .map(({ key, name, city, cents, txid }) =>
      buildBrCode({ pixKey: key, merchantName: name, merchantCity: city, amount: cents / 100, txid }),
    );
}

/** BR Codes with the keys and names stores really have: a UUID, an e-mail or a phone, ASCII names. */
export function typicalBrCodes(): fc.Arbitrary<string> {
  return brCodes({
    key: fc.oneof(
      fc.uuid(),
      fc.stringMatching(/^[a-z0-9._]{1,50}@[a-z]{1,12}\.com\.br$/),
      fc.stringMatching(/^\+55[0-9]{10,11}$/),
    ),
    name: fc.stringMatching(/^[A-Za-z][A-Za-z ]{0,24}$/),
    city: fc.stringMatching(/^[A-Za-z][A-Za-z ]{0,14}$/),
  });
}

/** Decodes a base64 PNG QR code back to its text. */
export function decodeQr(base64: string): string | undefined {
  const image = PNG.sync.read(Buffer.from(base64, 'base64'));
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
}

/** The events of a store of one type whose object has this id, oldest first. */
export async function eventsFor(api: TestApi, storeId: string, objectId: string, type?: string) {
  let query = api.db.selectFrom('events').selectAll().where('store_id', '=', storeId);
  if (type) query = query.where('type', '=', type);
  const rows = await query.orderBy('created_at').orderBy('id').execute();
  return rows
    .map((row) => ({ row, payload: JSON.parse(row.payload) }))
    .filter((e) => e.payload.data.object.id === objectId);
}

/** Rows written for a store, to prove a failed request wrote nothing. */
export async function countRows(api: TestApi, storeId: string) {
  const count = async (table: 'pix_charges' | 'sales' | 'events') =>
    (await api.db.selectFrom(table).select('id').where('store_id', '=', storeId).execute()).length;
  return { charges: await count('pix_charges'), sales: await count('sales'), events: await count('events') };
}

/**
 * A live charge written straight to the database: no live provider exists to create one through the
 * API, and mode separation still has to be shown in both directions.
 */
export async function insertLiveCharge(api: TestApi, storeId: string, externalId: string): Promise<string> {
  const id = prefixedId('pix');
  const row: PixChargesTable = {
    id,
    store_id: storeId,
    livemode: fromBool(true),
    status: 'pending',
    amount_cents: 1000,
    description: null,
    external_id: externalId,
    customer: null,
    metadata: null,
    txid: `live${id.slice(4)}`,
    copy_paste: '000201',
    qr_code_base64: '',
    expires_at: isoAfter(3_600_000),
    paid_at: null,
    created_at: nowIso(),
    next_check_at: null,
    canceled_at: null,
  };
  await api.db.insertInto('pix_charges').values(row).execute();
  return id;
}
