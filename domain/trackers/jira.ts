/**
 * Jira Cloud (the sprint tracker) → tracker items. A webhook delivery is `{ webhookEvent, timestamp, issue,
 * user, changelog?, … }`; `jira:issue_created` and `jira:issue_updated` keep the card in step and
 * `jira:issue_deleted` archives it; every other event (comments, worklogs, sprints, …) is ignored. The same reader
 * takes the issues of Jira's REST search (run_ticket_import), which have the same shape.
 *
 * Fields read: `issue.id` (the link), `issue.key`, `fields.summary`, `fields.description` (a string, or an
 * Atlassian Document Format document whose text is extracted), `fields.status { name, statusCategory { key } }`,
 * `fields.resolution.name`, `fields.issuetype.name`, `fields.labels`, `fields.priority` (`{ name }`, or a bare
 * name as in Atlassian's older examples), `fields.project { key, id }`, `fields.updated`; the browse URL is built
 * from `issue.self`'s origin and the key.
 *
 * | `statusCategory.key` | card status | a status name may pick |
 * |---|---|---|
 * | new ("To Do") | todo | backlog ("Backlog"), triage ("Open", "New"), blocked |
 * | indeterminate ("In Progress") | in_progress | blocked ("Blocked", "On Hold") |
 * | done ("Done") | done | archived ("Won't Do", "Cancelled"); also archived when the resolution is Won't Do, Won't Fix, Duplicate, Cannot Reproduce, Declined, Incomplete or Rejected |
 *
 * Priority: Highest, Blocker, Critical → urgent; High, Major → high; Medium → normal; Low, Lowest, Minor, Trivial →
 * low; anything else → normal.
 */
import { statusOf, type CardPriority, type CardStatus } from '../board/vocabulary.ts';
import { jiraText } from './adf.ts';
import { isRecord } from '../../engine/payload.ts';
import { description, FINISHED, ignored, IN_PROGRESS, labelNames, NOT_STARTED, refine, text, time, title, type ReadResult, type TrackerItem } from './item.ts';

const CATEGORIES: Record<string, [CardStatus, readonly CardStatus[]]> = {
  new: ['todo', NOT_STARTED],
  indeterminate: ['in_progress', IN_PROGRESS],
  done: ['done', FINISHED],
};

const PRIORITIES: Record<string, CardPriority> = {
  highest: 'urgent', blocker: 'urgent', critical: 'urgent',
  high: 'high', major: 'high',
  medium: 'normal', normal: 'normal',
  low: 'low', lowest: 'low', minor: 'low', trivial: 'low',
};

const WONT_DO_RESOLUTION = /^(won'?t|will not|not) (do|fix)|duplicate|cannot reproduce|can'?t reproduce|declined|incomplete|rejected|cancel+ed/i;

const EVENTS = ['jira:issue_created', 'jira:issue_updated', 'jira:issue_deleted'];

export function jiraStatus(fields: Record<string, unknown>): { status: CardStatus | null; state: string | null } {
  const status = isRecord(fields.status) ? fields.status : {};
  const name = text(status.name, 100) ?? null;
  const category = isRecord(status.statusCategory) ? text(status.statusCategory.key, 40) : undefined;
  const entry = category ? CATEGORIES[category.toLowerCase()] : undefined;
  if (!entry) return { status: null, state: name };
  let mapped = refine(entry[0], name, entry[1]);
  const resolution = isRecord(fields.resolution) ? text(fields.resolution.name, 100) : undefined;
  if (mapped === 'done' && resolution && (statusOf(resolution) === 'archived' || WONT_DO_RESOLUTION.test(resolution))) mapped = 'archived';
  return { status: mapped, state: name ?? category ?? null };
}

export function jiraPriority(value: unknown): CardPriority {
  const name = text(isRecord(value) ? value.name : value, 100)?.toLowerCase();
  return name !== undefined && Object.hasOwn(PRIORITIES, name) ? PRIORITIES[name]! : 'normal';
}

function browseUrl(self: unknown, key: string): string | null {
  if (typeof self !== 'string') return null;
  try {
    const url = new URL(self);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    return `${url.origin}/browse/${encodeURIComponent(key)}`;
  } catch {
    return null;
  }
}

/** An issue (webhook `issue` or a search result); undefined when it has no id. */
export function jiraIssue(issue: unknown, removed: boolean): TrackerItem | undefined {
  if (!isRecord(issue)) return undefined;
  const id = text(issue.id, 200);
  if (!id) return undefined;
  const key = text(issue.key, 200) ?? id;
  const fields = isRecord(issue.fields) ? issue.fields : {};
  const project = isRecord(fields.project) ? fields.project : {};
  const issueType = isRecord(fields.issuetype) ? text(fields.issuetype.name, 200) : undefined;
  const { status, state } = jiraStatus(fields);
  const projects = [text(project.key, 200), text(project.id, 200)].filter((p): p is string => p !== undefined);
  // the key's prefix is the project key even when a payload leaves `fields.project` out
  const prefix = /^([A-Za-z][A-Za-z0-9_]*)-\d+$/.exec(key)?.[1];
  if (prefix && projects.length === 0) projects.push(prefix);
  return {
    provider: 'sprint_tracker',
    externalId: id,
    identifier: key,
    title: title(fields.summary, key),
    description: description(jiraText(fields.description)),
    url: browseUrl(issue.self, key),
    labels: labelNames(fields.labels),
    projects,
    itemType: issueType ?? null,
    status,
    state,
    priority: jiraPriority(fields.priority),
    removed,
    updatedAt: time(fields.updated),
    repo: null,
  };
}

/** One webhook delivery's body. */
export function readJira(body: unknown): ReadResult {
  if (!isRecord(body)) return ignored('The body is not a Jira webhook payload (a JSON object with webhookEvent and issue).');
  const event = text(body.webhookEvent, 100);
  if (!event || !EVENTS.includes(event)) {
    return ignored(`The Jira event ${event ?? '(none)'} is not imported; ${EVENTS.join(', ')} keep cards in step.`);
  }
  const item = jiraIssue(body.issue, event === 'jira:issue_deleted');
  if (!item) return ignored('The event carries no issue (issue.id).');
  return { kind: 'item', item };
}
