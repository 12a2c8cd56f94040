/**
 * One-time signed links in a page (`acknowledgeUrl`, `resolveUrl` of every PageMessage): `/page/<token>`, the token
 * naming (organization, bundle, person, action, expiry) and a MAC of them under the deployment's key
 * (services.secrets.sign, purpose `page link`: the helper the API's cursors use). Nothing is stored for a link: it is
 * checked against its bundle's row (the message it came in), whose `acted_at` makes the links of one message work
 * once, whichever is followed first. GET shows the alerts and a button; POST acts (web/paging/page-links.ts).
 */
import type { Services } from '../../engine/services.ts';
import { constantTimeEqual } from '../../engine/crypto.ts';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import { BUNDLES, NOTIFICATIONS } from './escalation-entities.ts';

/** What a link does (domain/alerts/page-actions.ts's PageAction, named here so the engine does not import the alert operations). */
export type PageAction = 'acknowledge' | 'resolve';

/** How long a page's links work. */
export const LINK_HOURS = 24;
const PURPOSE = 'page link';

interface LinkClaims {
  organizationId: string;
  bundleId: string;
  userId: string;
  action: PageAction;
  /** expiry, epoch seconds */
  expires: number;
}

/** The link for one action on one message, or null when the deployment has no public URL (or the person no user). */
export function pageLink(services: Services, claims: { organizationId: string; bundleId: string; userId: string | null; action: PageAction }, now: Date): string | null {
  const base = services.config.publicUrl?.replace(/\/$/, '');
  if (!base || !claims.userId) return null;
  const expires = Math.floor(now.getTime() / 1000) + LINK_HOURS * 3600;
  const payload = Buffer.from(JSON.stringify([claims.organizationId, claims.bundleId, claims.userId, claims.action, expires])).toString('base64url');
  return `${base}/page/${payload}.${services.secrets.sign(PURPOSE, payload)}`;
}

export interface OpenLink extends LinkClaims {
  /** the channel the message went out on: the transport its action is audited with */
  channel: string;
  alerts: { id: string; title: string; severity: string; status: string }[];
}

/** The link's claims and its message's alerts when it is genuine, unexpired and unused; null otherwise (one answer for all). */
export async function openLink(services: Services, token: string): Promise<OpenLink | null> {
  const [payload, mac, extra] = token.split('.');
  if (!payload || !mac || extra !== undefined || !constantTimeEqual(mac, services.secrets.sign(PURPOSE, payload))) return null;
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(claims) || claims.length !== 5) return null;
  const [organizationId, bundleId, userId, action, expires] = claims as [string, string, string, PageAction, number];
  if (action !== 'acknowledge' && action !== 'resolve') return null;
  if (typeof expires !== 'number' || expires * 1000 <= services.clock.now().getTime()) return null;
  const sql = readStore(services).execute;
  const [bundle] = await sql(`select channel, user_id, acted_at from ${BUNDLES} where id = ? and organization_id = ?`, [bundleId, organizationId]);
  if (!bundle || bundle.acted_at || bundle.user_id !== userId) return null;
  const alerts = await sql(
    `select distinct a.id, a.title, a.severity, a.status from ${NOTIFICATIONS} n join alerts a on a.organization_id = n.organization_id and a.id = n.alert_id
      where n.bundle_id = ? and n.organization_id = ? order by a.title`,
    [bundleId, organizationId],
  );
  return {
    organizationId, bundleId, userId, action, expires, channel: String(bundle.channel),
    alerts: alerts.map((a) => ({ id: String(a.id), title: String(a.title), severity: String(a.severity), status: String(a.status) })),
  };
}

/** Marks the link's message used, in a transaction of its own: true for the one caller that got there first. */
export async function useLink(services: Services, link: OpenLink): Promise<boolean> {
  const now = services.clock.now();
  const claimed = await inTransaction(services, (store) => store.execute(`update ${BUNDLES} set acted_at = ? where id = ? and acted_at is null returning id`, [now, link.bundleId]));
  return claimed.length > 0;
}
