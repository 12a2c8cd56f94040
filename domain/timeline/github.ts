/**
 * GitHub webhook deliveries → timeline entries. Pure (no HTTP, no database) and never throws: whatever the event
 * name and payload, an entry, a reason to ignore it, or an error message.
 *
 * | `X-GitHub-Event` | recorded when | event_type | status | natural key |
 * |---|---|---|---|---|
 * | `push` | `ref` is `refs/heads/<repository.default_branch>` and the branch is not deleted | `code_push` | succeeded | `push:<repo id>:<after>` |
 * | `pull_request` | `action` closed, `merged` true, merged into the default branch | `pull_request_merged` | succeeded | `pull_request:<repo id>:<number>` |
 * | `workflow_run` | `action` completed, not started by a pull request or merge queue, and on the default branch or started by `workflow_dispatch`, `release`, `deployment`, `repository_dispatch` or `schedule` | `workflow_run` | from `conclusion` | `workflow_run:<repo id>:<run id>` |
 * | `deployment_status` | any state but `inactive` | `deploy` | from `state` | `deployment:<repo id>:<deployment id>` |
 * | `release` | `action` published | `release` | succeeded | `release:<repo id>:<release id>` |
 *
 * Statuses: a run's conclusion success or neutral → succeeded; failure, timed_out, startup_failure,
 * action_required (and a conclusion GitHub may add later) → failed; cancelled, skipped, stale → cancelled. A deployment's state pending or queued →
 * started; in_progress → in_progress; success → succeeded; failure or error → failed (`inactive`, a deployment a
 * newer one replaced, is ignored: it says nothing about this deploy's outcome).
 *
 * Columns filled: `repo_full_name`; `commit_sha` (push: `after`; merge: `merge_commit_sha`; run: `head_sha`;
 * deployment: `deployment.sha`; release: `target_commitish` when it is a commit); `version` (push: `after`, with
 * `previous_version` `before`; deployment: `deployment.ref`; release: `tag_name`); `branch`; `author` (commit
 * author, pull request author, deployment creator, release author); `deployed_by` (the pusher, whoever merged,
 * triggered the run, or sent the event); `environment` (deployments); URLs: `compare_url` (push), `pr_url`
 * (merge), `run_url` (the run; a deployment's log or target URL); `description` (commit message's first line,
 * `#<number> <title>`, `<workflow> #<run number>`, the deployment's or the release's name); `started_at` and
 * `completed_at` from the payload's own times. The rest (the event, the delivery id, the event's page, run
 * number and attempt, conclusion, …) goes to `details`.
 *
 * The natural key makes GitHub's redelivery of a delivery (same `X-GitHub-Delivery`, same payload) and later
 * events about the same thing (a deployment's statuses, a re-run of a workflow run) update one entry.
 * Runs started by pull requests or by pushes to other branches change nothing deployed and are ignored, like pushes
 * to other branches, tags and unmerged pull requests.
 */
import { httpUrl, isRecord, isoTime, record, type Json } from '../../engine/payload.ts';
import type { TextColumn } from './store.ts';
import { clean, LIMITS, type EventType, type Status } from './vocabulary.ts';

export interface CodeEntry {
  /** the natural key, without the service (the handler adds it) */
  key: string;
  repository: { id: string; name: string; fullName: string };
  event_type: EventType;
  status: Status;
  fields: Partial<Record<TextColumn, string>>;
  started_at?: Date | undefined;
  completed_at?: Date | undefined;
  details: Record<string, unknown>;
}

export type GitHubResult =
  | { kind: 'entry'; entry: CodeEntry }
  | { kind: 'ignored'; reason: string }
  | { kind: 'error'; message: string };

export const RECORDED_EVENTS = ['push', 'pull_request', 'workflow_run', 'deployment_status', 'release'] as const;

const ZERO_SHA = /^0{40}$/;
const SHA = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/i;
const RUN_EVENTS_OFF_BRANCH = ['workflow_dispatch', 'release', 'deployment', 'repository_dispatch', 'schedule'];
const PULL_REQUEST_TRIGGERS = ['pull_request', 'pull_request_target', 'pull_request_review', 'pull_request_review_comment', 'merge_group'];

const RUN_CONCLUSIONS: Record<string, Status> = {
  success: 'succeeded', neutral: 'succeeded',
  failure: 'failed', timed_out: 'failed', startup_failure: 'failed', action_required: 'failed',
  cancelled: 'cancelled', skipped: 'cancelled', stale: 'cancelled',
};
const DEPLOYMENT_STATES: Record<string, Status> = {
  pending: 'started', queued: 'started', in_progress: 'in_progress', success: 'succeeded', failure: 'failed', error: 'failed',
};

const ignored = (reason: string): GitHubResult => ({ kind: 'ignored', reason });
const failed = (message: string): GitHubResult => ({ kind: 'error', message });

/** Text for a column: cleaned and cut to `max` (GitHub's deliveries are never refused for a long value). */
function str(value: unknown, max: number = LIMITS.name): string | undefined {
  if (typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value))) return undefined;
  const s = clean(String(value));
  if (s === undefined) return undefined;
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
const url = (value: unknown) => (typeof value === 'string' ? httpUrl(value) : undefined);
const time = (value: unknown) => {
  const iso = isoTime(value);
  return iso ? new Date(iso) : undefined;
};
const login = (obj: Json | undefined) => str(obj?.login) ?? str(obj?.name);
const firstLine = (message: unknown) => (typeof message === 'string' ? str(message.split('\n', 1)[0], LIMITS.description) : undefined);
const at = (obj: Json | undefined, ...path: string[]): unknown => {
  let node: unknown = obj;
  for (const key of path) node = isRecord(node) && Object.hasOwn(node, key) ? node[key] : undefined;
  return node;
};

/** Drops undefined members, so what is stored and compared has no holes. */
function defined<T extends Record<string, unknown>>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function repositoryOf(payload: Json): CodeEntry['repository'] | undefined {
  const repo = record(payload, 'repository');
  const fullName = str(repo?.full_name);
  if (!repo || !fullName) return undefined;
  const id = str(repo.id) ?? fullName.toLowerCase();
  return { id, name: str(repo.name) ?? fullName.split('/').pop()!, fullName };
}

const defaultBranch = (payload: Json) => str(at(payload, 'repository', 'default_branch'));

interface Context {
  payload: Json;
  repo: CodeEntry['repository'];
  deliveryId: string | undefined;
}

function entry(ctx: Context, event: string, e: Omit<CodeEntry, 'repository' | 'details'> & { details: Record<string, unknown> }): GitHubResult {
  return {
    kind: 'entry',
    entry: {
      ...e,
      key: `github:${e.key}`,
      repository: ctx.repo,
      fields: defined({ repo_full_name: ctx.repo.fullName, deployed_by: login(record(ctx.payload, 'sender')), ...e.fields }),
      details: defined({ github_event: event, delivery_id: ctx.deliveryId, repository_id: ctx.repo.id, ...e.details }),
    },
  };
}

function push(ctx: Context): GitHubResult {
  const { payload } = ctx;
  const ref = str(payload.ref, 1000);
  const branch = defaultBranch(payload);
  if (!ref || !branch || ref !== `refs/heads/${branch}`) return ignored('A push to a branch other than the repository\'s default branch, or to a tag, is not recorded.');
  const after = str(payload.after, 100);
  if (payload.deleted === true || !after || ZERO_SHA.test(after)) return ignored('A push that deletes the branch is not recorded.');
  const before = str(payload.before, 100);
  const head = record(payload, 'head_commit');
  const commits = Array.isArray(payload.commits) ? payload.commits.length : undefined;
  return entry(ctx, 'push', {
    key: `push:${ctx.repo.id}:${after}`,
    event_type: 'code_push',
    status: 'succeeded',
    fields: defined({
      commit_sha: after, version: after, previous_version: before && !ZERO_SHA.test(before) ? before : undefined, branch,
      compare_url: url(payload.compare), description: firstLine(head?.message),
      author: str(at(head, 'author', 'username')) ?? str(at(head, 'author', 'name')),
      deployed_by: str(at(payload, 'pusher', 'name')) ?? login(record(payload, 'sender')),
    }),
    completed_at: time(at(payload, 'repository', 'pushed_at')) ?? time(head?.timestamp),
    details: defined({ html_url: url(head?.url) ?? url(payload.compare), commits, forced: payload.forced === true || undefined, created: payload.created === true || undefined }),
  });
}

function pullRequest(ctx: Context): GitHubResult {
  const { payload } = ctx;
  const pr = record(payload, 'pull_request');
  if (payload.action !== 'closed') return ignored('Only a pull request\'s merge (action closed, merged) is recorded.');
  if (!pr || pr.merged !== true) return ignored('A pull request closed without merging is not recorded.');
  const base = str(at(pr, 'base', 'ref'));
  const branch = defaultBranch(payload);
  if (!base || base !== branch) return ignored('A pull request merged into a branch other than the repository\'s default branch is not recorded.');
  const number = str(pr.number) ?? str(payload.number);
  if (!number) return failed('The pull_request payload has no pull request number.');
  const title = str(pr.title, LIMITS.description);
  return entry(ctx, 'pull_request', {
    key: `pull_request:${ctx.repo.id}:${number}`,
    event_type: 'pull_request_merged',
    status: 'succeeded',
    fields: defined({
      commit_sha: str(pr.merge_commit_sha, 100), branch: base, pr_url: url(pr.html_url),
      description: str(`#${number}${title ? ` ${title}` : ''}`, LIMITS.description),
      author: login(record(pr, 'user')), deployed_by: login(record(pr, 'merged_by')) ?? login(record(payload, 'sender')),
    }),
    completed_at: time(pr.merged_at) ?? time(pr.closed_at),
    details: defined({ html_url: url(pr.html_url), number: Number(number), head_branch: str(at(pr, 'head', 'ref')), head_sha: str(at(pr, 'head', 'sha'), 100) }),
  });
}

function workflowRun(ctx: Context): GitHubResult {
  const { payload } = ctx;
  const run = record(payload, 'workflow_run');
  if (payload.action !== 'completed') return ignored('Only a completed workflow run is recorded.');
  if (!run) return failed('The workflow_run payload has no workflow_run.');
  const branch = str(run.head_branch);
  const trigger = str(run.event);
  const onDefault = branch !== undefined && branch === defaultBranch(payload);
  // a fork's pull request from its own default branch has the same head_branch: the trigger tells them apart
  if (PULL_REQUEST_TRIGGERS.includes(trigger ?? '') || (!onDefault && !RUN_EVENTS_OFF_BRANCH.includes(trigger ?? ''))) {
    return ignored('A workflow run started by a pull request or by a push to another branch or a tag changes nothing deployed; it is not recorded.');
  }
  const id = str(run.id, 100);
  if (!id) return failed('The workflow_run payload has no run id.');
  const conclusion = str(run.conclusion);
  const name = str(run.name) || str(at(payload, 'workflow', 'name')) || 'workflow';
  const number = str(run.run_number);
  return entry(ctx, 'workflow_run', {
    key: `workflow_run:${ctx.repo.id}:${id}`,
    event_type: 'workflow_run',
    status: RUN_CONCLUSIONS[conclusion ?? ''] ?? 'failed',
    fields: defined({
      commit_sha: str(run.head_sha, 100), branch, run_url: url(run.html_url),
      description: str(`${name}${number ? ` #${number}` : ''}${run.display_title ? `: ${firstLine(run.display_title)}` : ''}`, LIMITS.description),
      author: str(at(run, 'head_commit', 'author', 'name')),
      deployed_by: login(record(run, 'triggering_actor')) ?? login(record(run, 'actor')) ?? login(record(payload, 'sender')),
    }),
    started_at: time(run.run_started_at) ?? time(run.created_at),
    completed_at: time(run.updated_at),
    details: defined({
      html_url: url(run.html_url), workflow: name, run_number: number === undefined ? undefined : Number(number),
      run_attempt: typeof run.run_attempt === 'number' ? run.run_attempt : undefined, conclusion, trigger,
    }),
  });
}

function deploymentStatus(ctx: Context): GitHubResult {
  const { payload } = ctx;
  const status = record(payload, 'deployment_status');
  const deployment = record(payload, 'deployment');
  if (!status || !deployment) return failed('The deployment_status payload has no deployment_status or deployment.');
  const state = str(status.state);
  if (state === 'inactive') return ignored('An inactive deployment status (a newer deployment replaced this one) is not recorded.');
  const mapped = DEPLOYMENT_STATES[state ?? ''];
  if (!mapped) return ignored('A deployment status in a state Vigil does not know is not recorded.');
  const id = str(deployment.id, 100);
  if (!id) return failed('The deployment_status payload has no deployment id.');
  const environment = str(status.environment) ?? str(deployment.environment);
  const task = str(deployment.task);
  const terminal = mapped === 'succeeded' || mapped === 'failed';
  return entry(ctx, 'deployment_status', {
    key: `deployment:${ctx.repo.id}:${id}`,
    event_type: 'deploy',
    status: mapped,
    fields: defined({
      environment, commit_sha: str(deployment.sha, 100), version: str(deployment.ref),
      run_url: url(status.log_url) ?? url(status.target_url) ?? url(at(payload, 'workflow_run', 'html_url')),
      description: str(deployment.description, LIMITS.description) ?? str(status.description, LIMITS.description)
        ?? str(`${task ?? 'deploy'}${environment ? ` to ${environment}` : ''}`, LIMITS.description),
      author: login(record(deployment, 'creator')), deployed_by: login(record(deployment, 'creator')) ?? login(record(payload, 'sender')),
    }),
    started_at: time(deployment.created_at),
    completed_at: terminal ? time(status.created_at) : undefined,
    details: defined({
      deployment_id: Number.isFinite(Number(id)) ? Number(id) : id, state, task,
      environment_url: url(status.environment_url), html_url: url(status.target_url),
    }),
  });
}

function release(ctx: Context): GitHubResult {
  const { payload } = ctx;
  if (payload.action !== 'published') return ignored('Only a published release is recorded.');
  const rel = record(payload, 'release');
  const id = str(rel?.id, 100);
  if (!rel || !id) return failed('The release payload has no release id.');
  const tag = str(rel.tag_name);
  const target = str(rel.target_commitish);
  return entry(ctx, 'release', {
    key: `release:${ctx.repo.id}:${id}`,
    event_type: 'release',
    status: 'succeeded',
    fields: defined({
      version: tag, commit_sha: target && SHA.test(target) ? target : undefined, branch: target && !SHA.test(target) ? target : undefined,
      description: str(rel.name, LIMITS.description) || tag, author: login(record(rel, 'author')),
    }),
    completed_at: time(rel.published_at) ?? time(rel.created_at),
    details: defined({ html_url: url(rel.html_url), tag_name: tag, prerelease: rel.prerelease === true || undefined }),
  });
}

const READERS: Record<(typeof RECORDED_EVENTS)[number], (ctx: Context) => GitHubResult> = {
  push, pull_request: pullRequest, workflow_run: workflowRun, deployment_status: deploymentStatus, release,
};

/** One delivery: the `X-GitHub-Event` name, the `X-GitHub-Delivery` id and the parsed payload. */
export function readGitHub(event: string | undefined, deliveryId: string | undefined, payload: unknown): GitHubResult {
  try {
    if (!event) return failed('The X-GitHub-Event header is missing: this endpoint takes GitHub webhook deliveries.');
    if (event === 'ping') return ignored('ping: GitHub checks that the hook answers; nothing to record.');
    if (event === 'issues') {
      // the code-host handler hands issues events to the tracker sync (trackers/handler.ts) before reading them here
      return ignored('issues events feed the code_host ticket import rule (ticket_import_rules), not the timeline.');
    }
    if (!(RECORDED_EVENTS as readonly string[]).includes(event)) {
      return ignored(`This event is not recorded; the timeline takes ${RECORDED_EVENTS.join(', ')}.`);
    }
    if (!isRecord(payload)) return failed('The payload is not a JSON object.');
    const repo = repositoryOf(payload);
    if (!repo) return failed('The payload names no repository (repository.full_name).');
    const id = deliveryId === undefined ? undefined : str(deliveryId, 100);
    return READERS[event as (typeof RECORDED_EVENTS)[number]]({ payload, repo, deliveryId: id });
  } catch {
    return failed('The payload could not be read as a GitHub webhook delivery.');
  }
}
