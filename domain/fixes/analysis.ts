/**
 * The background worker of fix requests (queue `fix-requests`): one job per request, holding only its ids.
 *
 * 1. Claim: the request must still be `analyzing`; a job stands back when another job holds a live claim on it
 *    (`worker_job`, `lease_until`), because that job takes the latest revision when it finishes. A retry of the
 *    same job (an instance died mid-analysis) takes its own claim back.
 * 2. Analyse the latest revision: the repository's tree and likely files through the code host, the provider
 *    (purpose `remediation`) for a patch or a decline, the answer checked (patch.ts), the five-open-PR limit
 *    checked again against the code host's own list, then the commit, branch and draft pull request
 *    (pull-request.ts). Each step is written to the request's timeline as it happens.
 * 3. Record the outcome — `pr_opened` with the URL, `declined` with the provider's reason, or `failed` with what
 *    went wrong — unless a repeat replaced the request meanwhile: then the analysis is marked `superseded` and
 *    the new revision is analysed in the same job (the pull request, if one was opened, is kept and reused).
 *
 * Expected failures (no provider answered, the code host refused or timed out, an unusable answer) end in
 * `failed` at once: sending the request again retries it. Anything else (the database) throws, so the queue
 * retries the job; the last attempt records `failed`. Secrets never reach the timeline: reasons come from
 * `AiUnavailable` and `CodeHostError`, which name statuses, never keys or tokens.
 */
import type { Job, JobHandler } from '../../engine/jobs/types.ts';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import type { SqlExecutor as Sql } from '../../engine/persistence/store.ts';
import { AiUnavailable, complete } from '../ai/client.ts';
import { CodeHostError, codeHostClient, repoPath, type CodeHost } from '../../outbound/net/code-host-app.ts';
import { buildMessages, chooseFiles, readProposal, UnusableAnswer } from './patch.ts';
import { openFixPullRequests, publish, readFiles, readRepository, type OpenPullRequest } from './pull-request.ts';
import { fixRequestEvent } from '../../outbound/events.ts';
import { publish as publishEvents } from '../../outbound/publish.ts';
import { appendEvent, COLUMNS, fixRequestView } from './records.ts';
import { FIX_QUEUE, OPEN_PULL_REQUEST_LIMIT } from './requests.ts';
import { currentSettings } from './targets.ts';

/** how long a claim holds; also how long the queue lets a job run before it counts as stuck */
const LEASE_SECONDS = 1800;
const RETRY_LIMIT = 3;

type Row = Record<string, unknown>;

type Outcome =
  | { status: 'pr_opened'; url: string; number: number; branch: string; detail: Row }
  | { status: 'declined'; reason: string }
  | { status: 'failed'; reason: string }
  | { status: 'superseded'; pr?: { url: string; number: number; branch: string } };

interface Analysed {
  outcome: Outcome;
  provider?: string;
  model?: string;
  /** other requests of the repository whose pull request the code host reports merged or closed */
  closed?: { id: string; number: number }[];
}

const leaseUntil = (now: Date) => new Date(now.getTime() + LEASE_SECONDS * 1000);

async function claim(services: Services, jobId: string, requestId: string, organizationId: string): Promise<Row | null> {
  const now = services.clock.now();
  return inTransaction(services, async (store) => {
    const sql = store.execute;
    const [row] = await sql(`select ${COLUMNS} from fix_requests where id = ? and organization_id = ? for update`, [requestId, organizationId]);
    if (!row || row.status !== 'analyzing') return null;
    const held = row.worker_job !== null && row.worker_job !== jobId && row.lease_until !== null && new Date(row.lease_until as string) > now;
    if (held) return null;
    await sql('update fix_requests set worker_job = ?, lease_until = ? where id = ?', [jobId, leaseUntil(now), requestId]);
    await appendEvent(sql, organizationId, requestId, Number(row.revision), now, 'analysis_started', {});
    return row;
  });
}

async function currentRevision(services: Services, requestId: string): Promise<number | null> {
  const [row] = await readStore(services).execute(`select revision, status from fix_requests where id = ?`, [requestId]);
  return row && row.status === 'analyzing' ? Number(row.revision) : null;
}

/**
 * Other requests of the repository whose pull request Vigil counts open but the code host does not list open:
 * each is asked for by number (a pull request opened by a racing analysis after the list was read is still
 * open, so the list alone cannot say), and those the code host reports closed or merged are answered.
 */
async function closedElsewhere(services: Services, host: CodeHost, row: Row, open: OpenPullRequest[]): Promise<{ id: string; number: number }[]> {
  const listed = open.map((p) => p.number);
  const candidates = await readStore(services).execute(
    `select id, pr_number from fix_requests where organization_id = ? and repo = ? and pr_state = 'open' and id <> ?
     ${listed.length ? `and pr_number not in (${listed.map(() => '?').join(', ')})` : ''}`,
    [row.organization_id, row.repo, row.id, ...listed],
  );
  const closed: { id: string; number: number }[] = [];
  for (const c of candidates) {
    const res = await host.request('GET', `${repoPath(String(row.repo))}/pulls/${Number(c.pr_number)}`, undefined, [404]);
    if (res.status === 404 || res.body?.state !== 'open') closed.push({ id: String(c.id), number: Number(c.pr_number) });
  }
  return closed;
}

async function analyse(services: Services, row: Row): Promise<Analysed> {
  const id = String(row.id);
  const orgId = String(row.organization_id);
  const revision = Number(row.revision);
  const repo = String(row.repo);
  const step = (name: string, detail: Row = {}) => appendEvent(readStore(services).execute, orgId, id, revision, services.clock.now(), name, detail);
  const settings = await currentSettings(services, readStore(services), orgId, repo);
  if (!settings.installationId) return { outcome: { status: 'failed', reason: 'The code-host app is no longer installed for this organization (code_host_settings.installation_id is empty).' } };
  const branch = `${settings.branchPrefix}${id}`;
  let provider: string | undefined;
  let model: string | undefined;
  let closed: Analysed['closed'];
  try {
    const host = codeHostClient(services, settings.installationId);
    const snapshot = await readRepository(host, repo, settings.baseBranch);
    const description = String(row.description);
    const service = (row.service as string | null) ?? null;
    const files = await readFiles(host, repo, snapshot.baseSha, chooseFiles(snapshot.tree, description, service));
    await step('files_read', { base_branch: settings.baseBranch, base_commit: snapshot.baseSha, paths: files.map((f) => f.path), repository_files: snapshot.tree.length });

    const messages = buildMessages({ description, service, repo, ticket: (row.ticket as string | null) ?? null, baseBranch: settings.baseBranch }, snapshot.tree, files, snapshot.truncated);
    const answer = await complete(services, { organization: { id: orgId }, purpose: 'remediation', messages, responseFormat: { type: 'json_object' }, reference: id }, services.clock.now());
    provider = answer.provider;
    model = answer.model;
    const proposal = readProposal(answer.content, files, new Set(snapshot.tree.map((e) => e.path)));
    await step('ai_answered', { provider, model, decision: proposal.decision, ...(proposal.decision === 'patch' ? { files: proposal.files.map((f) => f.path) } : {}) });
    if (proposal.decision === 'decline') return { outcome: { status: 'declined', reason: proposal.reason }, provider, model };

    const open = await openFixPullRequests(host, repo, settings.branchPrefix);
    closed = await closedElsewhere(services, host, row, open);
    const others = open.filter((p) => p.branch !== branch);
    if (others.length >= OPEN_PULL_REQUEST_LIMIT) {
      return {
        outcome: { status: 'failed', reason: `${repo} already has ${others.length} open fix pull requests (the limit is ${OPEN_PULL_REQUEST_LIMIT}); merge or close one, then send the request again.` },
        provider, model, closed,
      };
    }
    // a repeat arrived while the provider thought: do not push a commit it has replaced
    if ((await currentRevision(services, id)) !== revision) return { outcome: { status: 'superseded' }, provider, model, closed };

    const ticket = (row.ticket as string | null) ?? null;
    const footer = `\n\n---\nOpened by Vigil for fix request \`${id}\`${ticket ? ` (ticket ${ticket})` : ''}. Review before merging.`;
    const published = await publish(host, repo, {
      branch, baseBranch: settings.baseBranch, snapshot, files: proposal.files, title: proposal.title, body: `${proposal.body}${footer}`,
      commitMessage: `${proposal.title}\n\nFix request ${id}${ticket ? `, ticket ${ticket}` : ''}.`, draft: settings.draft, labels: settings.labels, reviewers: settings.reviewers,
    });
    const pr = { url: published.url, number: published.number, branch };
    await step(published.created ? 'pull_request_opened' : 'pull_request_updated', {
      url: published.url, number: published.number, branch, commit: published.commit, draft: settings.draft, labels: settings.labels, reviewers: settings.reviewers,
    });
    for (const warning of published.warnings) await step('warning', { message: warning });
    if ((await currentRevision(services, id)) !== revision) return { outcome: { status: 'superseded', pr }, provider, model, closed };
    return { outcome: { status: 'pr_opened', ...pr, detail: { created: published.created } }, provider, model, closed };
  } catch (error) {
    if (error instanceof AiUnavailable) return { outcome: { status: 'failed', reason: `AI unavailable: ${error.message}` }, closed };
    if (error instanceof CodeHostError) return { outcome: { status: 'failed', reason: `Code host error: ${error.message}` }, provider, model, closed };
    if (error instanceof UnusableAnswer) return { outcome: { status: 'failed', reason: `The AI provider's answer could not be used: ${error.message}.` }, provider, model, closed };
    throw error;
  }
}

/** Writes the outcome; answers the request again when a repeat replaced it meanwhile (analyse that next). */
async function record(services: Services, jobId: string, analysed: Row, result: Analysed): Promise<Row | null> {
  const now = services.clock.now();
  const id = String(analysed.id);
  const orgId = String(analysed.organization_id);
  const { outcome } = result;
  return inTransaction(services, async (store) => {
    const sql = store.execute;
    for (const c of result.closed ?? []) {
      const [s] = await sql(`update fix_requests set pr_state = 'closed' where id = ? and pr_state = 'open' and pr_number = ? returning revision, pr_url`, [c.id, c.number]);
      if (s) await appendEvent(sql, orgId, c.id, Number(s.revision), now, 'pull_request_closed', { url: s.pr_url, note: 'merged or closed on the code host' });
    }
    const [row] = await sql(`select ${COLUMNS} from fix_requests where id = ? for update`, [id]);
    if (!row || row.worker_job !== jobId || row.status !== 'analyzing') return null;
    const pr = outcome.status === 'pr_opened' ? outcome : outcome.status === 'superseded' ? outcome.pr : undefined;
    if (pr) await sql(`update fix_requests set branch = ?, pr_url = ?, pr_number = ?, pr_state = 'open' where id = ?`, [pr.branch, pr.url, pr.number, id]);
    const ai = { ai_provider: result.provider ?? row.ai_provider ?? null, ai_model: result.model ?? row.ai_model ?? null };
    if (outcome.status === 'superseded' || Number(row.revision) !== Number(analysed.revision)) {
      await appendEvent(sql, orgId, id, Number(analysed.revision), now, 'superseded', { note: 'a repeat replaced the request during its analysis; the new revision is analysed next' });
      await sql('update fix_requests set lease_until = ?, ai_provider = ?, ai_model = ? where id = ?', [leaseUntil(now), ai.ai_provider, ai.ai_model, id]);
      const [fresh] = await sql(`select ${COLUMNS} from fix_requests where id = ?`, [id]);
      await appendEvent(sql, orgId, id, Number(fresh!.revision), now, 'analysis_started', {});
      return fresh!;
    }
    const reason = outcome.status === 'declined' || outcome.status === 'failed' ? outcome.reason : null;
    await sql(
      `update fix_requests set status = ?, reason = ?, ai_provider = ?, ai_model = ?, worker_job = null, lease_until = null, completed_at = ?, updated_at = ? where id = ?`,
      [outcome.status, reason, ai.ai_provider, ai.ai_model, now, now, id],
    );
    const detail: Row =
      outcome.status === 'pr_opened' ? { url: outcome.url, number: outcome.number, branch: outcome.branch, ...outcome.detail }
        : { reason, ...(row.pr_state === 'open' ? { pull_request_left_open: row.pr_url } : {}) };
    await appendEvent(sql, orgId, id, Number(row.revision), now, outcome.status, detail);
    await finished(services, store, orgId, id, now);
    return null;
  });
}

/** The last attempt of a job that kept throwing: say so on the request, so it does not wait for ever. */
async function giveUp(services: Services, jobId: string, requestId: string): Promise<void> {
  const now = services.clock.now();
  await inTransaction(services, async (store) => {
    const [row] = await store.execute(`select organization_id, revision, status, worker_job from fix_requests where id = ? for update`, [requestId]);
    if (!row || row.status !== 'analyzing' || (row.worker_job !== null && row.worker_job !== jobId)) return;
    const reason = `An internal error stopped the analysis after ${RETRY_LIMIT + 1} attempts; send the request again to retry.`;
    await store.execute(`update fix_requests set status = 'failed', reason = ?, worker_job = null, lease_until = null, completed_at = ?, updated_at = ? where id = ?`, [reason, now, now, requestId]);
    await appendEvent(store.execute, String(row.organization_id), requestId, Number(row.revision), now, 'failed', { reason });
    await finished(services, store, String(row.organization_id), requestId, now);
  });
}

/** fix_request.finished, with the request as it ended, in the transaction that ended it. */
function finished(services: Services, store: { execute: Sql }, organizationId: string, id: string, now: Date): Promise<void> {
  return publishEvents(services, store, organizationId, ['fix_request.finished'], async () => {
    const [done] = await store.execute(`select ${COLUMNS} from fix_requests where id = ?`, [id]);
    return [fixRequestEvent({ ...fixRequestView(done!), id }, now)];
  });
}

export const fixRequestJob: JobHandler = {
  queue: FIX_QUEUE,
  retryLimit: RETRY_LIMIT,
  retryDelay: 5,
  retryBackoff: true,
  expireInSeconds: LEASE_SECONDS,
  concurrency: 2,
  async handle(job: Job, services: Services) {
    const data = (job.data ?? {}) as { request_id?: unknown; organization_id?: unknown };
    if (typeof data.request_id !== 'string' || typeof data.organization_id !== 'string') return;
    try {
      let row = await claim(services, job.id, data.request_id, data.organization_id);
      while (row) row = await record(services, job.id, row, await analyse(services, row));
    } catch (error) {
      if (job.retryCount >= RETRY_LIMIT) {
        if (!services.outage.noted(error)) services.log.error({ err: { name: (error as Error).name }, request: data.request_id }, 'fix request analysis gave up');
        await giveUp(services, job.id, data.request_id);
        return;
      }
      throw error;
    }
  },
};
