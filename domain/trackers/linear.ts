/**
 * Linear (the issue tracker) → tracker items. A webhook delivery is `{ action, type, data, url, createdAt,
 * webhookTimestamp, … }`; only `type: "Issue"` is read (comments, labels, projects, cycles… are ignored), with
 * `action` create / update / remove (remove: the issue was deleted or moved to the trash). The same reader takes
 * the issue nodes of Linear's GraphQL API (run_ticket_import), whose labels come as `{ nodes: [...] }`.
 *
 * | Linear `state.type` | card status | a state name may pick |
 * |---|---|---|
 * | triage | triage | |
 * | backlog | backlog | |
 * | unstarted | todo | backlog, triage, todo, blocked ("Blocked") |
 * | started | in_progress | blocked ("Blocked", "On Hold") |
 * | completed | done | |
 * | canceled (Canceled, Duplicate) | archived (won't do) | |
 *
 * Priority: 1 urgent, 2 high, 3 normal (Linear's "Medium"), 4 low, 0 (no priority) normal.
 * The item's project values are the team's key and id (`team.key`, `team.id`, or `teamId`).
 */
import type { CardPriority, CardStatus } from '../board/vocabulary.ts';
import { isRecord } from '../../engine/payload.ts';
import { description, httpUrl, ignored, IN_PROGRESS, labelNames, NOT_STARTED, refine, text, time, title, type ReadResult, type TrackerItem } from './item.ts';

const STATE_TYPES: Record<string, [CardStatus, readonly CardStatus[]]> = {
  triage: ['triage', ['triage']],
  backlog: ['backlog', ['backlog']],
  unstarted: ['todo', NOT_STARTED],
  started: ['in_progress', IN_PROGRESS],
  completed: ['done', ['done']],
  canceled: ['archived', ['archived']],
};

const PRIORITIES: Record<number, CardPriority> = { 0: 'normal', 1: 'urgent', 2: 'high', 3: 'normal', 4: 'low' };

export function linearStatus(state: unknown): { status: CardStatus | null; state: string | null } {
  if (!isRecord(state)) return { status: null, state: null };
  const type = text(state.type, 40);
  const name = text(state.name, 100) ?? null;
  const entry = type ? STATE_TYPES[type.toLowerCase()] : undefined;
  return { status: entry ? refine(entry[0], name, entry[1]) : null, state: name ?? type ?? null };
}

export function linearPriority(value: unknown): CardPriority {
  return typeof value === 'number' && Object.hasOwn(PRIORITIES, value) ? PRIORITIES[value]! : 'normal';
}

/** An issue (webhook `data` or a GraphQL node); undefined when it has no id. */
export function linearIssue(data: unknown, removed: boolean, fallbackUrl?: unknown): TrackerItem | undefined {
  if (!isRecord(data)) return undefined;
  const id = text(data.id, 200);
  if (!id) return undefined;
  const team = isRecord(data.team) ? data.team : {};
  const identifier = text(data.identifier, 200) ?? id;
  const projects = [text(team.key, 200), text(team.id, 200), text(data.teamId, 200)].filter((p): p is string => p !== undefined);
  const { status, state } = linearStatus(data.state);
  return {
    provider: 'issue_tracker',
    externalId: id,
    identifier,
    title: title(data.title, identifier),
    description: description(data.description),
    url: httpUrl(data.url) ?? httpUrl(fallbackUrl),
    labels: labelNames(data.labels),
    projects: [...new Set(projects)],
    itemType: null,
    status,
    state,
    priority: linearPriority(data.priority),
    removed,
    updatedAt: time(data.updatedAt),
    repo: null,
  };
}

const ACTIONS = ['create', 'update', 'remove'];

/** One webhook delivery's body. */
export function readLinear(body: unknown): ReadResult {
  if (!isRecord(body)) return ignored('The body is not a Linear webhook payload (a JSON object with type, action and data).');
  const type = text(body.type, 100);
  if (type !== 'Issue') return ignored(`Linear ${type ?? 'events without a type'} events are not imported; only Issue events keep cards in step.`);
  const action = text(body.action, 40);
  if (!action || !ACTIONS.includes(action)) return ignored(`The Issue action ${action ?? '(none)'} changes nothing on the board; create, update and remove do.`);
  const item = linearIssue(body.data, action === 'remove', body.url);
  if (!item) return ignored('The Issue event carries no issue (data.id).');
  return { kind: 'item', item };
}
