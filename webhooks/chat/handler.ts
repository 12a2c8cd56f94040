/**
 * `POST /webhooks/chat/<token>`: a button press or a slash command from the organization's chat workspace, after
 * the router checked the token, the rate limit and the signature (signature.ts). Steps:
 *
 * 1. unsigned (no `chat.signing_secret` saved), or a signature already used → 401 from the router, nothing read
 *    further: a press acts as a member, so the token alone is never enough;
 * 2. the interaction (interaction.ts): unreadable → 400; a payload type or button that is not Vigil's → 200,
 *    ignored; a command not understood → the grammar, privately;
 * 3. the chat user → a member: `users.info` with the bot token names the user's email, which must be a
 *    member's of this organization (memberships' email); otherwise a private "not a member" and nothing changes;
 * 4. the operation the button or command names (`acknowledge_alert`, `resolve_alert`, `acknowledge_incident`,
 *    `resolve_incident`) through `executeDomain`, exactly as REST and MCP run it, with a Caller for that member
 *    (the membership's role; credential `chat_user`, transport `chat`), so roles, audit and consequences are
 *    theirs. The alert's thread is told and its first post updated by the pipeline's own chat messages
 *    (outbound/chat/notices.ts: chat.update of the stored ts). A subject already resolved (or closed) is said so.
 *
 * Every answer is `200 { response_type: 'ephemeral', text }` (what Slack shows the command's author alone); for a
 * press that was acted on, whose HTTP answer Slack does not show, the same text also goes to the interaction's
 * `response_url` after the answer, and only when that URL is on the chat product's response host.
 */
import { randomUUID } from 'node:crypto';
import type { Caller } from '../../engine/auth/caller.ts';
import { ApiError } from '../../engine/errors.ts';
import { readStore } from '../../engine/operations/context.ts';
import { executeDomain } from '../../engine/operations/domain.ts';
import { MembershipEntity, tableName } from '../../engine/persistence/entities.ts';
import { isRole } from '../../engine/plans.ts';
import type { DomainOperation, Services } from '../../engine/services.ts';
import type { WebhookAnswer, WebhookHandler, WebhookRequest } from '../../domain/webhook-contract.ts';
import { acknowledgeAlert, resolveAlert } from '../../domain/alerts/alert-actions.ts';
import { acknowledgeIncident, resolveIncident } from '../../domain/alerts/incident-actions.ts';
import { getIncident } from '../../domain/alerts/incidents.ts';
import { getAlert } from '../../domain/alerts/tools.ts';
import { whoIsOnCallTool } from '../../domain/oncall/operations.ts';
import { chatUserEmail, respondPrivately } from '../../outbound/net/chat-api.ts';
import chat from '../../resources/chat.ts';
import schedules from '../../resources/schedules.ts';
import teams from '../../resources/teams.ts';
import { HELP, readInteraction, type Interaction, type Target } from './interaction.ts';
import './transport.ts';

type Act = Extract<Interaction, { kind: 'act' }>;

const ephemeral = (text: string, outcome: string, detail?: string): WebhookAnswer => ({
  status: 200, body: { response_type: 'ephemeral', text }, outcome, ...(detail ? { detail } : {}),
});

/** The operation a button or command runs, by its subject and verb: imported handles, as the console's. */
const OPERATIONS: Record<Target['subject'], Record<Act['verb'], DomainOperation>> = {
  alert: { ack: acknowledgeAlert, resolve: resolveAlert },
  incident: { ack: acknowledgeIncident, resolve: resolveIncident },
};

/** The connected workspace and its sealed bot token, or null when the workspace is not connected. */
async function connection(services: Services, organizationId: string): Promise<{ workspace: string; sealedToken: string } | null> {
  const family = services.registry.family(chat);
  const [row] = await readStore(services).execute(
    `select workspace_id, bot_token from "${tableName(family)}" where organization_id::text = ? and id::text = ?`, [organizationId, organizationId],
  );
  return row && typeof row.workspace_id === 'string' && typeof row.bot_token === 'string' ? { workspace: row.workspace_id, sealedToken: row.bot_token } : null;
}

/** The member a chat user is (by the email users.info names), or why not. */
async function memberOf(request: WebhookRequest, act: { user: string; team: string | null }): Promise<{ caller: Caller } | { refusal: string; detail: string }> {
  const { services, organization } = request;
  const notMember = `Your chat account is not a member of ${organization.name} in Vigil, so nothing was changed. Ask an admin to add the email of your chat profile as a member.`;
  const connected = await connection(services, organization.id);
  if (!connected) return { refusal: 'The chat workspace is not connected to Vigil (chat.workspace_id), so nothing was changed.', detail: 'chat workspace not connected' };
  if (act.team !== null && act.team !== connected.workspace) {
    return { refusal: 'This workspace is not the one connected to Vigil, so nothing was changed.', detail: 'the request came from another workspace' };
  }
  let token: string;
  try {
    token = services.secrets.open(connected.sealedToken);
  } catch {
    return { refusal: 'Vigil cannot read the stored chat bot token; an admin must store it again. Nothing was changed.', detail: 'unreadable bot token' };
  }
  const found = await chatUserEmail(services, token, act.user);
  if ('error' in found) return { refusal: notMember, detail: `users.info: ${found.error}` };
  const [member] = await readStore(services).execute(
    `select user_id, role from ${MembershipEntity.meta.tableName} where organization_id = ? and lower(email) = ?`, [organization.id, found.email],
  );
  if (!member) return { refusal: notMember, detail: 'the chat user\'s email is no member\'s' };
  return {
    caller: {
      organization,
      credential: { kind: 'chat_user', id: `${connected.workspace}:${act.user}`, userId: String(member.user_id), scopes: [] },
      role: isRole(member.role) ? member.role : 'viewer',
      transport: 'chat',
      endpointFeature: null,
      requestId: randomUUID(),
    },
  };
}

/** The subject as it is now (through get_alert / get_incident), or null when there is none by that id or fingerprint. */
async function subjectOf(services: Services, caller: Caller, target: Target): Promise<{ id: string; title: string; done: boolean } | null> {
  try {
    if (target.subject === 'alert') {
      const got = await executeDomain(services, caller, getAlert, target.by);
      const alert = 'json' in got ? (got.json as any).data : null;
      return alert ? { id: String(alert.id), title: String(alert.title), done: alert.status === 'resolved' } : null;
    }
    const got = await executeDomain(services, caller, getIncident, { id: target.id });
    const incident = 'json' in got ? (got.json as any).data : null;
    return incident ? { id: String(incident.id), title: String(incident.title), done: incident.status === 'closed' } : null;
  } catch (error) {
    if (error instanceof ApiError && (error.code === 'not_found' || error.code === 'validation_failed')) return null;
    throw error;
  }
}

const DONE = { ack: 'acknowledged', resolve: 'resolved' } as const;

async function act(request: WebhookRequest, act: Act): Promise<WebhookAnswer> {
  const { services } = request;
  const member = await memberOf(request, act);
  if ('refusal' in member) return ephemeral(member.refusal, 'refused: not a member', member.detail);
  const { caller } = member;
  const noun = act.target.subject;
  const subject = await subjectOf(services, caller, act.target);
  if (!subject) return ephemeral(`No ${noun} by that ${noun === 'alert' && 'fingerprint' in act.target.by ? 'fingerprint' : 'id'} exists in ${caller.organization.name}.`, 'refused: not found');
  if (subject.done) {
    return ephemeral(`The ${noun} "${subject.title}" is already ${noun === 'alert' ? 'resolved' : 'closed'}; nothing was changed.`, 'unchanged: already resolved');
  }
  try {
    await executeDomain(services, caller, OPERATIONS[act.target.subject][act.verb], { id: subject.id });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === 'forbidden') {
      return ephemeral(`Your role in ${caller.organization.name} is ${caller.role}: it cannot change ${noun}s (a member can). Nothing was changed.`, 'refused: role', error.message);
    }
    return ephemeral(`${error.message} Nothing was changed.`, `refused: ${error.code}`, error.message);
  }
  return ephemeral(`The ${noun} "${subject.title}" is ${DONE[act.verb]}.`, DONE[act.verb]);
}

type OnCallAsk = Extract<Interaction, { kind: 'oncall' }>;
interface OnCallLine { schedule: string; email: string | null; until: string | null; next: { email: string; start: string } | null }
const minute = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** `/vigil oncall [team or schedule]`: who_is_on_call for every schedule, a team's (by name) or one (by name). */
async function onCall(request: WebhookRequest, ask: OnCallAsk): Promise<WebhookAnswer> {
  const { services } = request;
  const member = await memberOf(request, ask);
  if ('refusal' in member) return ephemeral(member.refusal, 'refused: not a member', member.detail);
  const { caller } = member;
  const input: Record<string, string> = {};
  if (ask.name) {
    const named = (rows: Record<string, unknown>[]) => rows.find((r) => String(r.name).toLowerCase() === ask.name!.toLowerCase());
    const team = named(await readStore(services).list(teams, caller.organization.id));
    const schedule = team ? undefined : named(await readStore(services).list(schedules, caller.organization.id));
    if (team) input.team_id = String(team.id);
    else if (schedule) input.schedule_id = String(schedule.id);
    else return ephemeral(`No team or schedule is named "${ask.name}" in ${caller.organization.name}.`, 'refused: not found');
  }
  const got = await executeDomain(services, caller, whoIsOnCallTool, input);
  const lines = ('json' in got ? (got.json.data as OnCallLine[]) : []).map((s) =>
    `*${s.schedule}*: ${s.email ? `${s.email}${s.until ? ` until ${minute(s.until)}` : ''}` : 'no one'}${s.next ? `; next ${s.next.email} from ${minute(s.next.start)}` : ''}`);
  return ephemeral(lines.length ? lines.join('\n') : 'No schedules to answer for.', 'oncall');
}

/** Where the chat product's `response_url`s live (`VIGIL_CHAT_RESPONSE_URL`; Slack's by default): no other address is called. */
export const DEFAULT_RESPONSE_ORIGIN = 'https://hooks.slack.com';

/** The response_url when it is on the chat product's response host (same scheme, host and port), else null. */
function responseUrlOf(services: Services, url: string): string | null {
  if (!URL.canParse(url)) return null;
  return new URL(url).origin === (services.config.chat?.responseOrigin ?? DEFAULT_RESPONSE_ORIGIN) ? url : null;
}

export const chatHandler: WebhookHandler = async (request) => {
  // the router refused every request without a valid signature (signature.ts `alwaysSigned`): a press acts as a member
  if (!request.signed) throw new ApiError('unauthorized', 'Chat requests must be signed. Nothing was changed.');
  const interaction = readInteraction(request.raw);
  if (interaction.kind === 'unreadable') throw new ApiError('bad_request', `The chat request could not be read: ${interaction.reason}.`);
  if (interaction.kind === 'ignored') return { status: 200, body: {}, outcome: 'ignored', detail: interaction.reason };
  if (interaction.kind === 'help') return ephemeral(HELP, 'help', interaction.reason);
  if (interaction.kind === 'oncall') return onCall(request, interaction);
  const answer = await act(request, interaction);
  // a press's private reply: only for a press that was acted on, only to the chat product's response host, and only
  // once the answer is written (the product waits 3 s for it)
  const responseUrl = interaction.via === 'button' && interaction.responseUrl ? responseUrlOf(request.services, interaction.responseUrl) : null;
  if (!responseUrl || answer.outcome.startsWith('refused')) return answer;
  return { ...answer, afterAnswer: () => respondPrivately(request.services, responseUrl, String(answer.body.text)) };
};
