/**
 * `heartbeat`: a ping from something that should be heard from regularly (a cron job's `curl`, Alertmanager's
 * Watchdog), at `/webhooks/heartbeat/<token>/<heartbeat name>`, by GET or POST (domain/heartbeats/ping.ts).
 */
import { heartbeatPing } from '../../domain/heartbeats/ping.ts';
import { KiB, type WebhookSource } from './source.ts';

export const heartbeat: WebhookSource = {
  segment: 'heartbeat',
  product: 'heartbeat ping (cron job, script, Alertmanager Watchdog)',
  // the body is ignored, but senders post what they have (a job's output, Alertmanager's notification): room for either
  bodyLimit: 64 * KiB,
  namePath: true,
  // a job's output, posted as text, is what explains a ping later
  keepsText: true,
  // `curl https://…/<name>` from a crontab, and monitoring tools' webhook receivers, send GET or POST
  methods: ['GET', 'POST'],
  // the token alone: a crontab line cannot sign
  signing: null,
  handler: () => heartbeatPing,
};
