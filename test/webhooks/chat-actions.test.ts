/**
 * Acting from chat through `POST /webhooks/chat/<token>`, with a fake chat Web API on 127.0.0.1 (users.info,
 * chat.update, response_url): a signed Acknowledge press acknowledges the alert as the member the chat user maps to
 * (REST shows it; the audit names that member, transport chat) and the thread's first post is updated in place; a
 * forged signature, a stale timestamp and an organization without a signing secret are 401 and change nothing; an
 * unmapped chat user and a viewer are answered privately and change nothing; a press on a resolved alert says it
 * already is; the slash command acknowledges and resolves alerts (by fingerprint or id) and incidents, and answers
 * anything else with its grammar.
 */
import { createHmac } from 'node:crypto';
import t from 'tap';
import { startFakeChat, type ChatMessage } from '../helpers/fake-chat.ts';
import { person } from '../helpers/console.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { waitFor } from '../helpers/jobs.ts';
import { alertOrg, type AlertOrg } from '../helpers/outbound.ts';

const BOT = 'xoxb-chat-actions-token-51c2e8';
const SECRET = 'chat-signing-secret-for-presses-0042';
const WORKSPACE = 'T0CHATACT';
const chat = await startFakeChat({ token: BOT, channels: ['#alerts-db', '#ops'] });
t.teardown(() => chat.close());
// the fake chat stands for the response host too; a small webhook limit, so a flood of unsigned requests reaches it
const RATE = { points: 40, durationSeconds: 3600 };
const vigil = await startVigil({ chat: { apiUrl: chat.url, responseOrigin: new URL(chat.url).origin, retryDelaysSeconds: [0.2, 0.2] }, webhooks: { rateLimit: RATE } });
t.teardown(() => vigil.close());

interface ChatOrg extends AlertOrg {
  token: string;
  member: { id: string; email: string };
  viewer: { id: string; email: string };
}

let users = 0;
/** An organization with its workspace connected (and the signing secret saved unless `secret` is null), a member and a viewer known to the chat API. */
async function connected(secret: string | null = SECRET): Promise<ChatOrg> {
  const o = await alertOrg(vigil, { auto_open_incidents: true });
  t.teardown(() => o.agent.close());
  const put = await o.api.put(`${CONFIG}/chat`, { workspace_id: WORKSPACE, bot_token: BOT, default_channel: '#ops', ...(secret ? { signing_secret: secret } : {}) });
  if (put.status !== 200) throw new Error(JSON.stringify(put.body));
  const member = await person(vigil, { [o.id]: 'member' });
  const viewer = await person(vigil, { [o.id]: 'viewer' });
  const n = ++users;
  chat.users.set(`UMEMBER${n}`, member.email.toUpperCase());
  chat.users.set(`UVIEWER${n}`, viewer.email);
  const token = (await vigil.operator.get(`/api/admin/v1/organizations/${o.id}`)).body.webhook_token;
  return Object.assign(o, { token, member: { id: member.id, email: `UMEMBER${n}` }, viewer: { id: viewer.id, email: `UVIEWER${n}` } });
}
chat.users.set('USTRANGER', 'stranger@example.org');
chat.users.set('UNOEMAIL', undefined);

const now = () => Math.floor(vigil.clock.now().getTime() / 1000);
const sign = (body: string, timestamp: number, secret = SECRET) => `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;

/** Posts a form body to the chat endpoint, signed unless told otherwise. */
async function send(o: ChatOrg, form: Record<string, string>, opts: { timestamp?: number; signature?: string | null; secret?: string; body?: string } = {}) {
  const body = opts.body ?? new URLSearchParams(form).toString();
  const timestamp = opts.timestamp ?? now();
  const signature = opts.signature === undefined ? sign(body, timestamp, opts.secret) : opts.signature;
  const res = await fetch(`${vigil.url}/webhooks/chat/${o.token}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
      'x-slack-request-timestamp': String(timestamp), ...(signature !== null ? { 'x-slack-signature': signature } : {}),
    },
    body,
  });
  return { status: res.status, body: await res.json() as any, sent: { body, timestamp, signature } };
}

let presses = 0;
// the chat product gives every interaction its own trigger_id: two requests are never byte for byte the same
let triggers = 0;
/** A button press (block_actions) by a chat user on a button of Vigil's. */
function press(o: ChatOrg, user: string, actionId: string, value: string, opts: Parameters<typeof send>[2] & { responseUrl?: string } = {}) {
  const responseUrl = opts.responseUrl ?? `${chat.url}/response/${++presses}`;
  const payload = {
    type: 'block_actions', user: { id: user, username: user.toLowerCase(), team_id: WORKSPACE }, team: { id: WORKSPACE, domain: 'acme' },
    api_app_id: 'A0VIGIL', trigger_id: `123.456.${++triggers}`, response_url: responseUrl, container: { type: 'message', message_ts: '1772366400.000001', channel_id: 'C000001' },
    actions: [{ type: 'button', action_id: actionId, block_id: 'vigil_alert_actions', value, text: { type: 'plain_text', text: 'Acknowledge' }, action_ts: '1772366401.000001' }],
  };
  return send(o, { payload: JSON.stringify(payload) }, opts).then((answer) => ({ ...answer, responseUrl: new URL(responseUrl).pathname.slice(1) }));
}

/** A slash command as the chat product sends it. */
function command(o: ChatOrg, user: string, text: string, opts: Parameters<typeof send>[2] = {}) {
  return send(o, {
    token: 'deprecated-verification-token', team_id: WORKSPACE, team_domain: 'acme', channel_id: 'C000001', channel_name: 'ops', user_id: user,
    user_name: user.toLowerCase(), command: '/vigil', text, api_app_id: 'A0VIGIL', response_url: `${chat.url}/response/cmd`, trigger_id: `123.456.${++triggers}`,
  }, opts);
}

const status = async (o: ChatOrg, name: string) => (await o.alert(name)).status as string;
const alertId = async (o: ChatOrg, name: string) => (await o.alert(name)).id as string;
const buttonsOf = (m: { blocks: any[] }) => m.blocks.filter((b) => b.type === 'actions').flatMap((b) => b.elements.map((e: any) => [e.action_id, e.value]));

/** The first post of the alert's thread, once sent. */
async function firstPost(name: string): Promise<ChatMessage> {
  let found: ChatMessage | undefined;
  await waitFor(() => Boolean(found = chat.posts('#alerts-db').find((m) => m.text.includes(name))), `${name} posted`);
  return found!;
}

t.test('a signed Acknowledge press acknowledges as the member, audited with transport chat, and the first post is updated', async (t) => {
  const o = await connected();
  await o.fire({ name: 'DiskFullPress', service: 'db' });
  const id = await alertId(o, 'DiskFullPress');
  const post = await firstPost('DiskFullPress');
  t.same(buttonsOf(post), [['vigil_ack_alert', id], ['vigil_resolve_alert', id]], 'the first post offers Acknowledge and Resolve with the alert id');

  const answer = await press(o, o.member.email, 'vigil_ack_alert', id);
  t.equal(answer.status, 200);
  t.match(answer.body, { response_type: 'ephemeral', text: /DiskFullPress.*acknowledged/ });
  t.equal((await o.api.get(`${CONFIG}/alerts/${id}`)).body.data.status, 'acknowledged', 'REST shows it acknowledged');
  const entry = (await o.api.get(`${CONFIG}/audit_log`)).body.data.find((e: any) => e.action === 'action:acknowledge_alert' && e.row_id === id);
  t.match(entry, { actor: { kind: 'chat_user', id: o.member.id }, transport: 'chat', changes: { status: { before: 'firing', after: 'acknowledged' } } }, 'the member is the actor, via chat');
  t.ok(chat.calls.some((c) => c.method === 'users.info' && c.body?.user === o.member.email && c.headers.authorization === `Bearer ${BOT}`), 'the user was looked up with the bot token');
  await waitFor(() => post.updates.length > 0, 'the first post updated');
  t.match(post.updates.at(-1)!.text, /^Acknowledged: DiskFullPress/, 'chat.update shows the new state in place');
  t.same(buttonsOf(post.updates.at(-1)!), [['vigil_resolve_alert', id]], 'an acknowledged alert still offers Resolve');
  t.ok(chat.calls.some((c) => c.method === 'chat.update' && c.body.ts === post.ts), 'chat.update of the stored ts');
  t.match(chat.responses.find((r) => r.path === answer.responseUrl)?.body, { response_type: 'ephemeral', replace_original: false, text: /acknowledged/ }, 'told privately through response_url');
  const logged = await o.api.get(`${CONFIG}/webhook_deliveries?source=chat`);
  t.match(logged.body.data[0], { source: 'chat', status: 200, outcome: 'acknowledged' }, 'the delivery log has the press');
  t.notOk(JSON.stringify(logged.body).includes(answer.responseUrl), 'and not its response_url');

  const resolved = await press(o, o.member.email, 'vigil_resolve_alert', id);
  t.match(resolved.body, { text: /resolved/ });
  t.equal(await status(o, 'DiskFullPress'), 'resolved');
  await waitFor(() => post.updates.some((u) => u.text.startsWith('Resolved')), 'the first post shows resolved');
  t.same(buttonsOf(post.updates.at(-1)!), [], 'a resolved alert offers no buttons');
  const again = await press(o, o.member.email, 'vigil_resolve_alert', id);
  t.match(again.body, { response_type: 'ephemeral', text: /already resolved/ }, 'a press on a resolved alert says it already is');
  const ackResolved = await press(o, o.member.email, 'vigil_ack_alert', id);
  t.match(ackResolved.body, { text: /already resolved/ });
});

t.test('forged, stale and unsigned requests are 401 and change nothing', async (t) => {
  const o = await connected();
  await o.fire({ name: 'ForgedPress', service: 'db' });
  const id = await alertId(o, 'ForgedPress');
  const forged = await press(o, o.member.email, 'vigil_ack_alert', id, { secret: 'another-secret-of-enough-length' });
  t.match(forged, { status: 401, body: { error: 'unauthorized', message: /X-Slack-Signature/ } }, 'a signature with another secret');
  const tampered = await press(o, o.member.email, 'vigil_ack_alert', id, { signature: `v0=${'0'.repeat(64)}` });
  t.equal(tampered.status, 401, 'a made-up signature');
  const missing = await press(o, o.member.email, 'vigil_ack_alert', id, { signature: null });
  t.match(missing, { status: 401, body: { message: /must be signed/ } }, 'no signature');
  const stale = await press(o, o.member.email, 'vigil_ack_alert', id, { timestamp: now() - 6 * 60 });
  t.match(stale, { status: 401, body: { message: /more than 5 minutes/ } }, 'a timestamp six minutes old');
  const future = await press(o, o.member.email, 'vigil_ack_alert', id, { timestamp: now() + 6 * 60 });
  t.equal(future.status, 401, 'a timestamp six minutes ahead');
  const refusals = (await o.api.get(`${CONFIG}/webhook_deliveries?source=chat`)).body.data;
  t.ok(refusals.length === 5 && refusals.every((d: any) => d.status === 401), 'each refusal is in the delivery log');
  const fresh = await command(o, o.member.email, 'help', { timestamp: now() - 4 * 60 });
  t.match(fresh, { status: 200, body: { response_type: 'ephemeral' } }, 'a request four minutes old is still accepted');
  t.equal(await status(o, 'ForgedPress'), 'firing', 'nothing changed');
  t.notOk((await o.api.get(`${CONFIG}/audit_log`)).body.data.some((e: any) => e.transport === 'chat'), 'nothing audited');

  const unsigned = await connected(null);
  await unsigned.fire({ name: 'NoSecretPress', service: 'db' });
  const other = await alertId(unsigned, 'NoSecretPress');
  const refused = await press(unsigned, unsigned.member.email, 'vigil_ack_alert', other);
  t.match(refused, { status: 401, body: { error: 'unauthorized', message: /signing_secret/ } }, 'without a saved signing secret nothing is accepted');
  t.equal(await status(unsigned, 'NoSecretPress'), 'firing');
});

t.test('an unmapped chat user and a viewer are answered privately and change nothing', async (t) => {
  const o = await connected();
  await o.fire({ name: 'RefusedPress', service: 'db' });
  const id = await alertId(o, 'RefusedPress');
  for (const user of ['USTRANGER', 'UNOEMAIL', 'UUNKNOWN']) {
    const answer = await press(o, user, 'vigil_ack_alert', id);
    t.match(answer, { status: 200, body: { response_type: 'ephemeral', text: /your chat account is not a member/i } }, `${user}: not a member`);
  }
  const viewer = await press(o, o.viewer.email, 'vigil_resolve_alert', id);
  t.match(viewer, { status: 200, body: { response_type: 'ephemeral', text: /viewer.*Nothing was changed/ } }, 'a viewer is refused');
  const viewerCommand = await command(o, o.viewer.email, 'ack metric-dashboard:refusedpress');
  t.match(viewerCommand.body, { text: /viewer/ });
  t.equal(await status(o, 'RefusedPress'), 'firing', 'nothing changed');
  t.notOk((await o.api.get(`${CONFIG}/audit_log`)).body.data.some((e: any) => e.transport === 'chat'), 'nothing audited');
  const ignored = await press(o, o.member.email, 'someone_elses_button', id);
  t.match(ignored, { status: 200, body: {} }, 'a button that is not Vigil\'s is ignored');
  t.same(ignored.body, {});
  t.equal(await status(o, 'RefusedPress'), 'firing');
});

t.test('slash commands: ack and resolve an alert by fingerprint or id, an incident by id, and the grammar for anything else', async (t) => {
  const o = await connected();
  await o.fire({ name: 'CommandA', service: 'db' }, { name: 'CommandB', service: 'db' });
  const a = await o.alert('CommandA');
  const b = await o.alert('CommandB');

  const ack = await command(o, o.member.email, 'ack metric-dashboard:commanda');
  t.match(ack, { status: 200, body: { response_type: 'ephemeral', text: /CommandA.*acknowledged/ } }, 'ack by fingerprint');
  t.equal(await status(o, 'CommandA'), 'acknowledged');
  const resolve = await command(o, o.member.email, `resolve ${a.id}`);
  t.match(resolve.body, { text: /CommandA.*resolved/ }, 'resolve by id');
  t.equal(await status(o, 'CommandA'), 'resolved');
  const again = await command(o, o.member.email, `resolve ${a.id}`);
  t.match(again.body, { text: /already resolved/ });
  const unknown = await command(o, o.member.email, 'ack metric-dashboard:nothing-like-it');
  t.match(unknown.body, { response_type: 'ephemeral', text: /No alert by that fingerprint/ });

  const incident = b.incident_id as string;
  t.ok(incident, 'CommandB opened an incident');
  const incidentAck = await command(o, o.member.email, `incident ${incident} ack`);
  t.match(incidentAck.body, { response_type: 'ephemeral', text: /incident .* is acknowledged/ });
  t.equal(await status(o, 'CommandB'), 'acknowledged', 'its firing alert is acknowledged');
  const incidentResolve = await command(o, o.member.email, `incident ${incident} resolve`);
  t.match(incidentResolve.body, { text: /is resolved/ });
  t.equal((await o.api.get(`${CONFIG}/incidents/${incident}`)).body.data.status, 'closed', 'REST shows the incident closed');
  const closed = await command(o, o.member.email, `incident ${incident} resolve`);
  t.match(closed.body, { text: /already closed/ });
  const entries = (await o.api.get(`${CONFIG}/audit_log`)).body.data.filter((e: any) => e.transport === 'chat');
  t.ok(entries.length >= 4 && entries.every((e: any) => e.actor.kind === 'chat_user' && e.actor.id === o.member.id), 'every change audited as the member via chat');

  for (const text of ['', 'help', 'ack', 'incident', `incident ${incident}`, `incident ${incident} reopen`, 'page everyone']) {
    const help = await command(o, o.member.email, text);
    t.match(help, { status: 200, body: { response_type: 'ephemeral', text: /Usage:[\s\S]*\/vigil ack <alert>[\s\S]*\/vigil incident <id> ack/ } }, `"${text}": the grammar`);
  }
});

t.test('an incident post offers the incident buttons, and a press acknowledges the incident', async (t) => {
  const o = await connected();
  await o.fire({ name: 'IncidentPress', service: 'db' });
  const incident = (await o.alert('IncidentPress')).incident_id as string;
  let post: ChatMessage | undefined;
  await waitFor(() => Boolean(post = chat.posts('#ops').find((m) => m.text.includes('Incident opened') && m.text.includes('IncidentPress'))), 'the incident posted');
  t.same(buttonsOf(post!), [['vigil_ack_incident', incident], ['vigil_resolve_incident', incident]]);
  const answer = await press(o, o.member.email, 'vigil_ack_incident', incident);
  t.match(answer.body, { text: /is acknowledged/ });
  t.equal(await status(o, 'IncidentPress'), 'acknowledged');
  t.ok((await o.api.get(`${CONFIG}/incidents/${incident}`)).body.data.acknowledged_at, 'the incident records its acknowledgement');
});

t.test('a body that is neither a press nor a command is 400; ids that name nothing are said so', async (t) => {
  const o = await connected();
  const answer = await send(o, { hello: 'world' });
  t.match(answer, { status: 400, body: { error: 'bad_request', message: /neither/ } });
  const broken = await send(o, { payload: '{not json' });
  t.equal(broken.status, 400);
  const notAnId = await press(o, o.member.email, 'vigil_ack_alert', 'not-a-uuid\'; drop table alerts');
  t.match(notAnId, { status: 200, body: { response_type: 'ephemeral', text: /No alert by that id/ } }, 'a button value that names no alert');
  const noIncident = await command(o, o.member.email, 'incident 7 ack');
  t.match(noIncident, { status: 200, body: { text: /No incident by that id/ } });
  const longFingerprint = await command(o, o.member.email, `ack ${'x'.repeat(2500)}`);
  t.match(longFingerprint, { status: 200, body: { text: /No alert by that fingerprint/ } });
});

t.test('signed hostile bodies are answered without a 5xx and change nothing', async (t) => {
  const o = await connected();
  await o.fire({ name: 'HostilePress', service: 'db' });
  const id = await alertId(o, 'HostilePress');
  const payloads: unknown[] = [
    null, 42, 'block_actions', [], { type: 'block_actions' }, { type: 'block_actions', user: 'U1', actions: 'x' },
    { type: 'block_actions', user: { id: { nested: true } }, actions: [{ action_id: 'vigil_ack_alert', value: id }] },
    { type: 'block_actions', user: { id: o.member.email }, actions: [null] },
    { type: 'block_actions', user: { id: o.member.email }, actions: [{ action_id: 'vigil_ack_alert', value: 7 }] },
    { type: 'block_actions', user: { id: o.member.email }, actions: [{ action_id: '__proto__', value: id }] },
    { type: 'block_actions', user: { id: o.member.email }, actions: [{ action_id: 'constructor', value: id }] },
    { type: 'view_submission', user: { id: o.member.email } },
  ];
  for (const payload of payloads) {
    const answer = await send(o, { payload: JSON.stringify(payload) });
    t.ok(answer.status < 500, `payload ${JSON.stringify(payload).slice(0, 60)}: ${answer.status}`);
  }
  const forms: Record<string, string>[] = [
    { command: '/vigil' }, { command: '/vigil', user_id: '' }, { command: '/vigil', user_id: o.member.email, text: 'incident \u0000 ack' },
    { command: '/vigil', user_id: o.member.email, text: `ack %00${'é'.repeat(50)}` }, { command: '/vigil', user_id: 'U'.repeat(500), text: 'ack x' },
    { payload: '' }, { payload: 'null' },
  ];
  for (const form of forms) {
    const answer = await send(o, form);
    t.ok(answer.status < 500, `form ${JSON.stringify(form).slice(0, 60)}: ${answer.status}`);
  }
  t.equal(await status(o, 'HostilePress'), 'firing', 'nothing changed');
});

t.test('/vigil oncall [team or schedule]: who is on call now and next, by name, for members of the organization', async (t) => {
  const o = await connected();
  const ana = await person(vigil, { [o.id]: 'member' });
  const ben = await person(vigil, { [o.id]: 'member' });
  const team = (await o.api.post(`${CONFIG}/teams`, { name: 'Databases', member_emails: [ana.email, ben.email] })).body.data;
  const daily = { name: 'Daily', participants: [ana.email, ben.email], rotation: { unit: 'daily', length: 1 }, handoff: '2026-02-01T09:00' };
  t.equal((await o.api.post(`${CONFIG}/schedules`, { name: 'DB primary', time_zone: 'UTC', team_id: team.id, layers: [daily] })).status, 201);
  t.equal((await o.api.post(`${CONFIG}/schedules`, { name: 'Quiet', time_zone: 'UTC' })).status, 201);
  vigil.clock.set('2026-03-01T12:00:00Z');

  const all = await command(o, o.member.email, 'oncall');
  t.equal(all.status, 200);
  t.equal(all.body.text, `*DB primary*: ${ana.email} until 2026-03-02 09:00 UTC; next ${ben.email} from 2026-03-02 09:00 UTC\n*Quiet*: no one`, 'every schedule, now and next');
  const byTeam = await command(o, o.member.email, 'oncall databases');
  t.match(byTeam.body.text, /^\*DB primary\*: /, 'a team by name (without regard to case): its schedules');
  t.notMatch(byTeam.body.text, /Quiet/);
  t.match((await command(o, o.member.email, 'oncall Quiet')).body.text, /^\*Quiet\*: no one$/, 'a schedule by name');
  t.match((await command(o, o.member.email, 'oncall Nothing Here')).body, { response_type: 'ephemeral', text: /No team or schedule is named "Nothing Here"/ });
  t.match((await command(o, 'USTRANGER', 'oncall')).body.text, /not a member/, 'a chat user who is no member learns nothing');
  t.match((await command(o, o.member.email, 'help')).body.text, /\/vigil oncall \[team or schedule\]/, 'the grammar names it');
});

t.test('issue 41: a signed request is accepted once; its replay within the window is 401 and changes nothing', async (t) => {
  const o = await connected();
  await o.fire({ name: 'ReplayedPress', service: 'db' });
  const id = await alertId(o, 'ReplayedPress');
  const resolved = await press(o, o.member.email, 'vigil_resolve_alert', id);
  t.match(resolved.body, { text: /resolved/ });
  await o.fire({ name: 'ReplayedPress', service: 'db' });
  t.equal(await status(o, 'ReplayedPress'), 'firing', 'the alert fired again');
  const replay = await send(o, {}, { body: resolved.sent.body, timestamp: resolved.sent.timestamp, signature: resolved.sent.signature });
  t.match(replay, { status: 401, body: { error: 'replayed' } }, 'the captured press, sent again, is refused');
  t.equal(await status(o, 'ReplayedPress'), 'firing', 'and resolved nothing');
  const logged = (await o.api.get(`${CONFIG}/webhook_deliveries?source=chat&limit=1`)).body.data[0];
  t.match(logged, { status: 401, outcome: 'refused: replayed' }, 'the replay is in the delivery log');
});

t.test('issue 41: unsigned requests with the token alone do not use up the limit of signed ones', async (t) => {
  const o = await connected();
  const answers = [];
  for (let i = 0; i < RATE.points + 5; i++) answers.push((await command(o, o.member.email, 'help', { signature: null })).status);
  t.ok(answers.slice(0, RATE.points).every((s) => s === 401), 'unsigned requests are 401');
  t.same(answers.slice(RATE.points), [429, 429, 429, 429, 429], 'a flood of them is limited on its own count');
  const signed = await command(o, o.member.email, 'help');
  t.equal(signed.status, 200, 'a correctly signed command still goes through');
});

t.test('issue 41: response_url is called only on the chat host, only for a press acted on, and after the answer', async (t) => {
  const o = await connected();
  await o.fire({ name: 'ResponsePress', service: 'db' });
  const id = await alertId(o, 'ResponsePress');
  // another host (here: the same server under another name, 127.0.0.2 ≠ the configured origin)
  const elsewhere = `${chat.url.replace('127.0.0.1', 'localhost')}/response/elsewhere`;
  const other = await press(o, o.member.email, 'vigil_ack_alert', id, { responseUrl: elsewhere });
  t.match(other.body, { text: /acknowledged/ }, 'the press itself is done');
  const stranger = await press(o, 'USTRANGER', 'vigil_resolve_alert', id);
  t.match(stranger.body, { text: /not a member/ });
  // the fake holds every response_url call until released: the press must be answered first
  const release = chat.holdResponses();
  const held = await press(o, o.member.email, 'vigil_resolve_alert', id);
  t.match(held, { status: 200, body: { text: /resolved/ } }, 'answered');
  await waitFor(() => chat.heldOpen() === 1, 'the response_url call made');
  t.ok(chat.responses.some((r) => r.path === held.responseUrl), 'its response_url call was made, and is still waiting, after the answer');
  release();
  t.notOk(chat.responses.some((r) => r.path === 'response/elsewhere'), 'a response_url on another host is never called');
  t.notOk(chat.responses.some((r) => r.path === stranger.responseUrl), 'a refused press is not answered through response_url');
});
