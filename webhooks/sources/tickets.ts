/**
 * `tickets`: open a card in Triage, edit one (`/<token>/<card>`) or comment on one (`/<token>/<card>/comments`),
 * from a form, a script or an SNS topic (webhooks/tickets-handler.ts). An SNS topic's signature is checked by the
 * handler when the operator named this source in the organization's signing switch.
 */
import { boardHandler } from '../tickets-handler.ts';
import type { WebhookSource } from './source.ts';

export const tickets: WebhookSource = {
  segment: 'tickets',
  product: 'ticket (form, script or SNS topic)',
  // the spec's value
  bodyLimit: 65_536,
  cardPaths: true,
  signing: null,
  handler: (options) => boardHandler(options),
};
