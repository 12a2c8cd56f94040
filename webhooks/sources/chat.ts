/**
 * `chat`: the chat app's interactivity and slash-command request URL (one Slack app has one): Acknowledge and
 * Resolve button presses on alert threads and incident posts, and `/vigil …` commands, each run as the member the
 * chat user maps to (webhooks/chat/handler.ts). Signed with the chat family's signing secret, always.
 */
import { chatHandler } from '../chat/handler.ts';
import { chatSignature } from '../chat/signature.ts';
import { KiB, type WebhookSource } from './source.ts';

export const chatSource: WebhookSource = {
  segment: 'chat',
  product: 'chat app interactivity (Slack-compatible)',
  // a block_actions payload carries the pressed message's blocks: tens of KiB at most
  bodyLimit: 256 * KiB,
  signing: chatSignature,
  handler: () => chatHandler,
};
