/**
 * The way back from a Pushover emergency page. Pushover calls the message's `callback` URL when the person
 * acknowledges it in the app, unsigned, with `receipt`, `acknowledged`, `acknowledged_at` and `acknowledged_by`
 * (pushover.net/api/receipts). So the URL carries a token of its own per message (only its SHA-256 is kept here, with
 * whom and which alerts the page was for), and nothing is acted on until Pushover's receipts API, asked with the
 * application token, says that receipt was acknowledged. Each receipt acts once (`acted_at`). Rows are kept a week.
 */
import { EntitySchema } from '@mikro-orm/core';
import { generateToken, hashToken } from '../../engine/crypto.ts';
import { readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';

export const PushoverReceiptEntity = new EntitySchema<any>({
  name: 'PagingPushoverReceipt',
  tableName: 'paging_pushover_receipts',
  properties: {
    token_hash: { type: 'string', columnType: 'text', primary: true },
    organization_id: { type: 'string', columnType: 'uuid' },
    user_id: { type: 'string', columnType: 'uuid' },
    bundle_id: { type: 'string', columnType: 'uuid' },
    alert_ids: { type: 'json', columnType: 'jsonb' },
    /** Pushover's receipt, once it answered the message */
    receipt: { type: 'string', columnType: 'text', nullable: true, unique: true },
    created_at: { type: 'Date', columnType: 'timestamptz', index: true },
    acted_at: { type: 'Date', columnType: 'timestamptz', nullable: true },
  },
});

const TABLE = PushoverReceiptEntity.meta.tableName;

export const CALLBACK_PATH = '/paging/pushover';
/** Pushover answers a receipt for a week; an emergency stops repeating after an hour: older rows serve nothing */
const KEPT_MS = 7 * 24 * 3600_000;

/** A callback URL for one emergency page, its token stored (hashed) with whom and what it acknowledges. */
export async function newCallback(services: Services, page: { organizationId: string; userId: string; bundleId: string; alertIds: string[] }, now: Date): Promise<{ url: string; tokenHash: string }> {
  const token = generateToken('vpo_');
  const tokenHash = hashToken(token);
  // each new page prunes what no callback can use any more, so the table holds about a week of emergencies
  await readStore(services).execute(`delete from ${TABLE} where created_at < ?`, [new Date(now.getTime() - KEPT_MS)]);
  await readStore(services).execute(
    `insert into ${TABLE} (token_hash, organization_id, user_id, bundle_id, alert_ids, created_at) values (?, ?, ?, ?, ?, ?)`,
    [tokenHash, page.organizationId, page.userId, page.bundleId, JSON.stringify(page.alertIds), now],
  );
  return { url: `${services.config.publicUrl.replace(/\/+$/, '')}${CALLBACK_PATH}/${token}`, tokenHash };
}

/** Pushover's receipt for the page, once it accepted it; a page Pushover refused leaves no callback behind. */
export async function settleCallback(services: Services, tokenHash: string, receipt: string | null): Promise<void> {
  if (receipt) await readStore(services).execute(`update ${TABLE} set receipt = ? where token_hash = ?`, [receipt, tokenHash]);
  else await readStore(services).execute(`delete from ${TABLE} where token_hash = ?`, [tokenHash]);
}

export interface StoredReceipt {
  organizationId: string;
  userId: string;
  alertIds: string[];
  receipt: string | null;
  acted: boolean;
}

export async function receiptByToken(services: Services, token: string): Promise<StoredReceipt | null> {
  const [row] = await readStore(services).execute(
    `select organization_id, user_id, alert_ids, receipt, acted_at from ${TABLE} where token_hash = ?`, [hashToken(token)],
  );
  if (!row) return null;
  const ids = typeof row.alert_ids === 'string' ? JSON.parse(row.alert_ids) : row.alert_ids;
  return {
    organizationId: String(row.organization_id), userId: String(row.user_id), alertIds: Array.isArray(ids) ? ids.map(String) : [],
    receipt: typeof row.receipt === 'string' ? row.receipt : null, acted: row.acted_at != null,
  };
}

/** Claims the receipt's one action: true for the one caller that marks it acted. */
export async function claimReceipt(services: Services, token: string, now: Date): Promise<boolean> {
  const rows = await readStore(services).execute(
    `update ${TABLE} set acted_at = ? where token_hash = ? and acted_at is null returning token_hash`, [now, hashToken(token)],
  );
  return rows.length === 1;
}
