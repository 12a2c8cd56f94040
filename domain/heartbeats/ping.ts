/**
 * A ping: `GET` or `POST /webhooks/heartbeat/<token>/<name>` (webhooks/sources/heartbeat.ts). The router has checked
 * the token; this records the ping on the organization's heartbeat of that name, moving its deadline on, and a
 * heartbeat that was down has its alert resolved. The body, if any, is ignored (cron jobs post their output; it is
 * kept in the delivery log like any delivery).
 */
import { ApiError } from '../../engine/errors.ts';
import { readStore } from '../../engine/operations/context.ts';
import type { WebhookAnswer, WebhookHandler } from '../webhook-contract.ts';
import { feed } from '../checks/scheduler.ts';
import { heartbeatFacts } from './alerts.ts';
import { recordPing } from './deadlines.ts';
import { heartbeatTable } from './sweep.ts';

export const heartbeatPing: WebhookHandler = async ({ services, organization, name, receivedAt }): Promise<WebhookAnswer> => {
  const table = heartbeatTable(services);
  if (!name) throw new ApiError('not_found', 'A ping names its heartbeat: /webhooks/heartbeat/<token>/<heartbeat name>.');
  const now = services.clock.now();
  const pinged = await recordPing(readStore(services).execute, table, organization.id, name, now);
  // the name is not echoed: the answer says only that none matched
  if (!pinged) throw new ApiError('not_found', 'No heartbeat of this organization has that name; create it in heartbeats first (names are case-sensitive).');
  const { row, previous } = pinged;
  if (previous === 'down') await feed(services, organization.id, heartbeatFacts(row), 'resolved', now);
  return {
    status: 200,
    body: { name: row.name, status: 'up', last_ping_at: row.last_ping_at?.toISOString() ?? receivedAt.toISOString(), next_due_at: row.next_due_at?.toISOString() ?? null },
    outcome: previous === 'down' ? 'resolved' : 'ping',
    detail: previous === 'down' ? 'the heartbeat was down: its alert is resolved' : undefined,
  };
};
