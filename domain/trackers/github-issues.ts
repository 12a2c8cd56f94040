/**
 * GitHub `issues` events (arriving on the code-host endpoint) → tracker items for the `code_host` import rule.
 * Every action carries the whole issue, so opened, edited, labeled, unlabeled, closed, reopened, assigned, … all
 * keep the card in step the same way; `deleted` (and `transferred`, the issue left the repository) archive it.
 * The same reader takes the items of GitHub's issue search (run_ticket_import), whose repository comes from
 * `repository_url`.
 *
 * | issue `state` | `state_reason` | card status |
 * |---|---|---|
 * | open | (any) | triage |
 * | closed | completed, null | done |
 * | closed | not_planned, duplicate | archived (won't do) |
 *
 * GitHub issues have no priority: cards are opened `normal` and a later delivery never changes the priority.
 * The identifier is `owner/name#number`; the item's project value is the repository's `owner/name`.
 */
import type { CardStatus } from '../board/vocabulary.ts';
import { isRecord } from '../../engine/payload.ts';
import { description, httpUrl, ignored, labelNames, text, time, title, type ReadResult, type TrackerItem } from './item.ts';

const REMOVED = ['deleted', 'transferred'];
const WONT_DO = ['not_planned', 'duplicate'];

export function githubStatus(issue: Record<string, unknown>): { status: CardStatus | null; state: string | null } {
  const state = text(issue.state, 40)?.toLowerCase();
  const reason = text(issue.state_reason, 40)?.toLowerCase();
  if (state === 'open') return { status: 'triage', state: 'open' };
  if (state === 'closed') return { status: reason && WONT_DO.includes(reason) ? 'archived' : 'done', state: reason ? `closed (${reason})` : 'closed' };
  return { status: null, state: state ?? null };
}

/** `https://api.github.com/repos/owner/name` → owner/name */
function repoFromUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /\/repos\/([^/]+)\/([^/?#]+)\/?$/.exec(value);
  return match ? `${decodeURIComponent(match[1]!)}/${decodeURIComponent(match[2]!)}` : undefined;
}

/** An issue of a repository; undefined when it has no id or no repository. */
export function githubIssue(issue: unknown, repository: unknown, removed: boolean): TrackerItem | undefined {
  if (!isRecord(issue)) return undefined;
  const id = text(issue.id, 100);
  const repo = (isRecord(repository) ? text(repository.full_name, 300) : undefined) ?? repoFromUrl(issue.repository_url);
  if (!id || !repo) return undefined;
  const number = text(issue.number, 20);
  const identifier = number ? `${repo}#${number}` : `${repo}@${id}`;
  const { status, state } = githubStatus(issue);
  return {
    provider: 'code_host',
    externalId: id,
    identifier,
    title: title(issue.title, identifier),
    description: description(issue.body),
    url: httpUrl(issue.html_url),
    labels: labelNames(issue.labels),
    projects: [repo],
    itemType: null,
    status,
    state,
    priority: null,
    removed,
    updatedAt: time(issue.updated_at),
    repo,
  };
}

/** One `issues` delivery's payload. */
export function readGitHubIssues(payload: unknown): ReadResult {
  if (!isRecord(payload)) return ignored('The payload is not a JSON object.');
  const action = text(payload.action, 40) ?? '(none)';
  const item = githubIssue(payload.issue, payload.repository, REMOVED.includes(action));
  if (!item) return ignored('The issues event names no issue (issue.id) or no repository (repository.full_name).');
  return { kind: 'item', item };
}
