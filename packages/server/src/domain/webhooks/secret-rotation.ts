import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { SecretBox } from '../../platform/values/secret-box.js';
import { isoAfter, nowIso } from '../../platform/values/time.js';
import type { WebhookEndpointsTable } from './endpoint-object.js';
import { generateWebhookSecret } from './signature.js';

export const MAX_ROTATION_OVERLAP_HOURS = 168;
export const DEFAULT_ROTATION_OVERLAP_HOURS = 24;

/**
 * Gives the endpoint a new signing secret. The current one becomes the previous one and keeps
 * signing for `overlapHours` (0: it stops at once), so receivers can switch without missing a
 * delivery. Whatever previous secret an earlier rotation left is dropped: at most two secrets sign.
 * The sealed value moves as is, inside the UPDATE (same key, same endpoint binding): nothing is
 * decrypted, and two rotations at once serialize on the row, the second keeping the first's secret.
 */
export async function rotateEndpointSecret(
  db: Kysely<Database>,
  row: WebhookEndpointsTable,
  overlapHours: number,
  secretBox: SecretBox,
): Promise<{ row: WebhookEndpointsTable; secret: string }> {
  const secret = generateWebhookSecret();
  const now = new Date();
  const overlap = overlapHours > 0;
  const updated = await db
    .updateTable('webhook_endpoints')
    .set((eb) => ({
      previous_secret_sealed: overlap ? eb.ref('secret_sealed') : null,
      previous_secret_expires_at: overlap ? isoAfter(overlapHours * 3_600_000, now) : null,
      secret_sealed: secretBox.seal(secret, row.id),
      updated_at: now.toISOString(),
    }))
    .where('store_id', '=', row.store_id)
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row: updated, secret };
}

/** The secrets a delivery is signed with now: the current one, then the previous one until it expires. */
export function signingSecrets(
  row: Pick<
    WebhookEndpointsTable,
    'id' | 'secret_sealed' | 'previous_secret_sealed' | 'previous_secret_expires_at'
  >,
  secretBox: SecretBox,
  now = nowIso(),
): string[] {
  const secrets = [secretBox.open(row.secret_sealed, row.id)];
  if (row.previous_secret_sealed && row.previous_secret_expires_at && row.previous_secret_expires_at > now) {
    secrets.push(secretBox.open(row.previous_secret_sealed, row.id));
  }
  return secrets;
}
