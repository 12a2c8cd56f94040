/**
 * The channels a page can go out on, by contact method type: one file each. A type with no channel here is recorded
 * as not sent (`no_channel`), so a method saved before its channel existed fails loudly on the timeline, not silently.
 */
import type { ContactType } from '../../../resources/contact_methods.ts';
import type { Channel } from './channel.ts';
import { chatChannel } from './chat.ts';
import { emailChannel } from './email.ts';
import { ntfyChannel } from './ntfy.ts';
import { pushoverChannel } from './pushover.ts';
import { smsChannel } from './sms.ts';
import { voiceChannel } from './voice.ts';
import { webhookChannel } from './webhook.ts';

const CHANNELS: readonly Channel[] = [emailChannel, ntfyChannel, pushoverChannel, chatChannel, webhookChannel, smsChannel, voiceChannel];

const byType = new Map<ContactType, Channel>(CHANNELS.map((c) => [c.type, c]));

export function channelFor(type: ContactType): Channel | undefined {
  return byType.get(type);
}

