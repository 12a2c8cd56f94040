/**
 * ntfy: a push to the person's topic (`https://<server>/<topic>`), published as JSON to the server's root
 * (docs.ntfy.sh/publish, "Publish as JSON"). High urgency is priority 5 (max), low 3 (default). The notification's
 * Acknowledge action is an ntfy `http` action: the phone POSTs the page's one-time acknowledge link itself, so the
 * way back needs nothing from the ntfy server. The organization's access token goes only to the server it belongs
 * to (`ntfy_server`): a topic on another server is published without it. The answer's `id` is the providerId.
 */
import type { Channel } from './channel.ts';
import { jsonOf, providerCall, refusal } from './provider-call.ts';
import { providerAccounts } from './providers.ts';

/** ntfy's own limit on a message body is 4,096 bytes; a title is kept short for a lock screen */
const MESSAGE_MAX = 4000;
const TITLE_MAX = 250;

const MEANINGS: Record<number, string> = {
  400: 'the server refused the message',
  401: 'the topic needs an access token: set ntfy_server and ntfy_access_token for this server',
  403: 'the access token may not publish to this topic',
  404: 'no such topic or server path',
  413: 'the message is too large',
  429: 'the server is rate limiting publishes',
  507: 'the server is full',
};

export const ntfyChannel: Channel = {
  type: 'ntfy',
  async send({ services }, to, message) {
    let topicUrl: URL;
    try {
      topicUrl = new URL(to.address);
    } catch {
      return { status: 'failed', reason: 'the ntfy address is not a topic URL' };
    }
    const topic = topicUrl.pathname.replace(/^\/+/, '');
    const accounts = await providerAccounts(services, message.organizationId);
    const ownServer = accounts.ntfyServer !== null && accounts.ntfyAccessToken !== null && URL.canParse(accounts.ntfyServer) && new URL(accounts.ntfyServer).origin === topicUrl.origin;
    const open = message.alerts.find((a) => a.url)?.url ?? null;
    const actions = [
      ...(message.acknowledgeUrl ? [{ action: 'http', label: 'Acknowledge', url: message.acknowledgeUrl, method: 'POST', clear: true }] : []),
      ...(open ? [{ action: 'view', label: 'Open', url: open }] : []),
    ];
    const body = {
      topic,
      title: message.subject.slice(0, TITLE_MAX),
      message: message.text.slice(0, MESSAGE_MAX),
      priority: message.urgency === 'high' ? 5 : 3,
      tags: [message.urgency === 'high' ? 'rotating_light' : 'warning', ...new Set(message.alerts.map((a) => a.severity))].slice(0, 5),
      ...(open ? { click: open } : {}),
      ...(actions.length ? { actions } : {}),
    };
    const called = await providerCall(services, 'the ntfy server', {
      url: `${topicUrl.origin}/`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Vigil-Paging/1', ...(ownServer ? { authorization: `Bearer ${accounts.ntfyAccessToken}` } : {}) },
      body: JSON.stringify(body),
      purpose: 'ntfy page',
    });
    if ('failed' in called) return called.failed;
    const { response } = called;
    if (response.status < 200 || response.status >= 300) return refusal('the ntfy server', response.status, MEANINGS[response.status]);
    const id = jsonOf(response)?.id;
    return { status: 'sent', ...(typeof id === 'string' && id.length <= 64 ? { providerId: id } : {}) };
  },
};
