/**
 * Chat: a direct message from the organization's chat app (resources/chat.ts: the connected workspace's bot token)
 * to the person's chat user id, in Slack's Web API shape: `conversations.open` with `users=<id>` answers the DM's
 * channel, then `chat.postMessage` posts the page with the same Acknowledge and Resolve buttons as alert posts
 * (CHAT_BUTTONS: an incident's buttons for an alert in one), so a press comes back through the chat interactivity
 * endpoint (webhooks/chat/), which maps the presser to a member and acts as them. The providerId is the post's ts.
 */
import { readStore } from '../../../engine/operations/context.ts';
import { tableName } from '../../../engine/persistence/entities.ts';
import type { Services } from '../../../engine/services.ts';
import { callWebApi, mrkdwnText as escape } from '../../../outbound/net/chat-api.ts';
import chat, { CHAT_BUTTONS, type ChatButton } from '../../../resources/chat.ts';
import type { Channel, PageMessage } from './channel.ts';

/** alerts (or incidents) shown with their own buttons; a larger bundle says how many more */
const SUBJECTS_SHOWN = 10;

async function botToken(services: Services, organizationId: string): Promise<string | null> {
  const family = services.registry.family(chat);
  const [row] = await readStore(services).execute(`select bot_token from "${tableName(family)}" where organization_id = ? and id = ?`, [organizationId, organizationId]);
  return row && typeof row.bot_token === 'string' ? services.secrets.open(row.bot_token) : null;
}

function buttons(subject: 'alert' | 'incident', id: string) {
  const names = (Object.keys(CHAT_BUTTONS) as ChatButton[]).filter((b) => CHAT_BUTTONS[b].subject === subject);
  return {
    type: 'actions', block_id: `vigil_page_${subject}_${id}`.slice(0, 255),
    elements: names.map((b) => ({
      type: 'button', action_id: b, value: id, text: { type: 'plain_text', text: CHAT_BUTTONS[b].label },
      ...(CHAT_BUTTONS[b].operation.startsWith('resolve') ? { style: 'primary' } : {}),
    })),
  };
}

/** The DM: a headline, then each alert (or incident) with its link and buttons. */
export function pageBlocks(message: PageMessage): unknown[] {
  const blocks: unknown[] = [{ type: 'section', text: { type: 'mrkdwn', text: `*${escape(message.subject).slice(0, 2900)}*` } }];
  const seen = new Set<string>();
  const subjects = message.alerts.filter((a) => {
    const key = a.incidentId ?? a.id;
    return seen.has(key) ? false : (seen.add(key), true);
  });
  for (const alert of subjects.slice(0, SUBJECTS_SHOWN)) {
    const link = alert.url && /^https?:\/\//.test(alert.url) ? ` <${alert.url.replaceAll('|', '%7C').replaceAll('>', '%3E')}|Open>` : '';
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `[${escape(alert.severity)}] ${escape(alert.title).slice(0, 2800)}${link}` } });
    blocks.push(alert.incidentId ? buttons('incident', alert.incidentId) : buttons('alert', alert.id));
  }
  if (subjects.length > SUBJECTS_SHOWN) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `and ${subjects.length - SUBJECTS_SHOWN} more in Vigil` }] });
  return blocks;
}

export const chatChannel: Channel = {
  type: 'chat',
  async send({ services }, to, message) {
    const token = await botToken(services, message.organizationId);
    if (!token) return { status: 'failed', reason: 'chat_not_connected: the organization has no chat app connected (an org admin saves the bot token in chat settings)' };
    const opened = await callWebApi(services, token, 'conversations.open', { users: to.address });
    if (opened.outcome !== 'ok') return { status: 'failed', reason: `conversations.open: ${opened.message}` };
    if (!opened.channel) return { status: 'failed', reason: 'conversations.open: the chat API answered no channel' };
    const posted = await callWebApi(services, token, 'chat.postMessage', { channel: opened.channel, text: message.subject.slice(0, 3000), blocks: pageBlocks(message) });
    if (posted.outcome !== 'ok') return { status: 'failed', reason: `chat.postMessage: ${posted.message}` };
    return { status: 'sent', ...(posted.ts ? { providerId: posted.ts } : {}) };
  },
};
