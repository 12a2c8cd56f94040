/**
 * The ways back from an sms or voice page. Each page sent through Twilio is kept here with whom and which alerts it
 * was for, the account it went out on, Twilio's SID (status callbacks find it by that), and:
 * - for a text, a 4-digit reply code, unique among that number's open pages ("Reply 4821 to acknowledge");
 * - for a call, the SHA-256 of a token in the Gather action's URL (press 1 / 2 post there).
 * Each page acts once (`acted_at`). Rows are kept a week; each new page prunes older ones.
 */
import { randomInt } from 'node:crypto';
import { EntitySchema } from '@mikro-orm/core';
import { generateToken, hashToken } from '../../engine/crypto.ts';
import { readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';

export const TwilioPageEntity = new EntitySchema<any>({
  name: 'PagingTwilioPage',
  tableName: 'paging_twilio_pages',
  properties: {
    id: { type: 'string', columnType: 'text', primary: true },
    kind: { type: 'string', columnType: 'text' },
    account_sid: { type: 'string', columnType: 'text' },
    organization_id: { type: 'string', columnType: 'uuid' },
    user_id: { type: 'string', columnType: 'uuid' },
    bundle_id: { type: 'string', columnType: 'uuid' },
    to_address: { type: 'string', columnType: 'text', index: true },
    alert_ids: { type: 'json', columnType: 'jsonb' },
    reply_code: { type: 'string', columnType: 'text', nullable: true },
    gather_token_hash: { type: 'string', columnType: 'text', nullable: true, unique: true },
    /** Twilio's message or call SID, once it accepted the request */
    sid: { type: 'string', columnType: 'text', nullable: true, unique: true },
    created_at: { type: 'Date', columnType: 'timestamptz', index: true },
    acted_at: { type: 'Date', columnType: 'timestamptz', nullable: true },
  },
});

const TABLE = TwilioPageEntity.meta.tableName;
const KEPT_MS = 7 * 24 * 3600_000;

export interface TwilioPage {
  id: string;
  kind: 'sms' | 'voice';
  accountSid: string;
  organizationId: string;
  userId: string;
  bundleId: string;
  to: string;
  alertIds: string[];
  replyCode: string | null;
  sid: string | null;
  acted: boolean;
}

const pageOf = (row: Record<string, unknown>): TwilioPage => {
  const ids = typeof row.alert_ids === 'string' ? JSON.parse(row.alert_ids) : row.alert_ids;
  return {
    id: String(row.id), kind: row.kind === 'voice' ? 'voice' : 'sms', accountSid: String(row.account_sid), organizationId: String(row.organization_id),
    userId: String(row.user_id), bundleId: String(row.bundle_id), to: String(row.to_address), alertIds: Array.isArray(ids) ? ids.map(String) : [],
    replyCode: typeof row.reply_code === 'string' ? row.reply_code : null, sid: typeof row.sid === 'string' ? row.sid : null, acted: row.acted_at != null,
  };
};

export interface NewPage {
  kind: 'sms' | 'voice';
  accountSid: string;
  organizationId: string;
  userId: string;
  bundleId: string;
  to: string;
  alertIds: string[];
}

/** Stores a page before it is sent: a text gets a reply code unused among the number's open pages, a call a Gather token. */
export async function newTwilioPage(services: Services, page: NewPage, now: Date): Promise<{ id: string; replyCode: string | null; gatherToken: string | null }> {
  const sql = readStore(services).execute;
  await sql(`delete from ${TABLE} where created_at < ?`, [new Date(now.getTime() - KEPT_MS)]);
  let replyCode: string | null = null;
  if (page.kind === 'sms') {
    const taken = new Set((await sql(`select reply_code from ${TABLE} where to_address = ? and acted_at is null and reply_code is not null`, [page.to])).map((r) => String(r.reply_code)));
    do replyCode = String(randomInt(1000, 10000)); while (taken.has(replyCode));
  }
  const gatherToken = page.kind === 'voice' ? generateToken('vtw_') : null;
  const id = generateToken('twp_');
  await sql(
    `insert into ${TABLE} (id, kind, account_sid, organization_id, user_id, bundle_id, to_address, alert_ids, reply_code, gather_token_hash, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [id, page.kind, page.accountSid, page.organizationId, page.userId, page.bundleId, page.to, JSON.stringify(page.alertIds), replyCode, gatherToken ? hashToken(gatherToken) : null, now],
  );
  return { id, replyCode, gatherToken };
}

/** Twilio's SID once it accepted the page; a page Twilio refused leaves nothing behind. */
export async function settleTwilioPage(services: Services, id: string, sid: string | undefined): Promise<void> {
  if (sid) await readStore(services).execute(`update ${TABLE} set sid = ? where id = ?`, [sid, id]);
  else await readStore(services).execute(`delete from ${TABLE} where id = ?`, [id]);
}

export async function pageBySid(services: Services, sid: string): Promise<TwilioPage | null> {
  const [row] = await readStore(services).execute(`select * from ${TABLE} where sid = ?`, [sid]);
  return row ? pageOf(row) : null;
}

export async function pageByGatherToken(services: Services, token: string): Promise<TwilioPage | null> {
  const [row] = await readStore(services).execute(`select * from ${TABLE} where gather_token_hash = ? and sid is not null`, [hashToken(token)]);
  return row ? pageOf(row) : null;
}

/** The text a reply answers: the one with that code to that number, else (no code) the latest open one; only sent texts of that account. */
export async function pageForReply(services: Services, accountSid: string, from: string, code: string | null): Promise<TwilioPage | null> {
  const [row] = code
    ? await readStore(services).execute(`select * from ${TABLE} where kind = 'sms' and account_sid = ? and to_address = ? and reply_code = ? and sid is not null order by created_at desc limit 1`, [accountSid, from, code])
    : await readStore(services).execute(`select * from ${TABLE} where kind = 'sms' and account_sid = ? and to_address = ? and acted_at is null and sid is not null order by created_at desc limit 1`, [accountSid, from]);
  return row ? pageOf(row) : null;
}

/** Claims the page's one action: true for the one caller that marks it acted. */
export async function claimTwilioPage(services: Services, id: string, now: Date): Promise<boolean> {
  const rows = await readStore(services).execute(`update ${TABLE} set acted_at = ? where id = ? and acted_at is null returning id`, [now, id]);
  return rows.length === 1;
}
