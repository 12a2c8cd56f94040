/**
 * One run of a tracker's import rule: fetch what is open (clients.ts) with the saved credentials — the tracker's
 * `ticket_integrations` row (base_url, account, api_token; a disabled row is not used), or for the code host the
 * organization's app installation (`code_host_settings.installation_id`) — and run every item through the same
 * sync as the webhooks. Counts: `fetched`, `created`, `updated` (changed or archived), `unchanged`, `ignored` (the
 * rule does not name it), `errors` (an item that could not be synced, or the fetch itself failing: then 1 and
 * the run's `error` says why). Items synced before a fetch failure stay synced.
 */
import { loggedError } from '../../engine/logger.ts';
import type { Organization } from '../../engine/auth/caller.ts';
import { ApiError } from '../../engine/errors.ts';
import { readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import { githubIssues, githubQuery, jiraIssues, linearIssues, TrackerApiError, type Credentials } from './clients.ts';
import { outboundHttp } from '../../outbound/net/http.ts';
import { githubIssue } from './github-issues.ts';
import type { Provider, TrackerItem } from './item.ts';
import { jiraIssue } from './jira.ts';
import { linearIssue } from './linear.ts';
import type { ImportRule } from './rules.ts';
import { syncItem } from './sync.ts';
import codeHostSettings from '../../resources/code_host_settings.ts';
import ticketIntegrations from '../../resources/ticket_integrations.ts';

export interface RunCounts {
  fetched: number;
  created: number;
  updated: number;
  unchanged: number;
  ignored: number;
  errors: number;
}

export interface RunResult {
  provider: Provider;
  counts: RunCounts;
  error?: string;
}

async function credentials(services: Services, organization: Organization, provider: Provider): Promise<Credentials> {
  const [row] = await readStore(services).list(services.registry.family(ticketIntegrations), organization.id, { where: { provider } });
  if (!row) throw new TrackerApiError(`No credentials are saved for ${provider}: save them with configure_ticket_integration.`);
  if (row.enabled === false) throw new TrackerApiError(`The ${provider} credentials are disabled (ticket_integrations enabled: false).`);
  if (typeof row.api_token !== 'string') throw new TrackerApiError(`No API token is saved for ${provider}.`);
  return { baseUrl: String(row.base_url), account: String(row.account ?? ''), token: services.secrets.open(row.api_token) };
}

async function codeHost(services: Services, organization: Organization): Promise<{ installationId: string; account: string | null }> {
  const row = await readStore(services).get(services.registry.family(codeHostSettings), organization.id, organization.id);
  if (typeof row?.installation_id !== 'string' || row.installation_id === '') {
    throw new TrackerApiError('The code-host app is not installed: set installation_id in code_host_settings.');
  }
  return { installationId: row.installation_id, account: typeof row.account === 'string' ? row.account : null };
}

async function source(services: Services, organization: Organization, rule: ImportRule): Promise<{ items: AsyncGenerator<unknown>; read: (raw: unknown) => TrackerItem | undefined }> {
  switch (rule.provider) {
    case 'issue_tracker':
      return { items: linearIssues(outboundHttp(services), await credentials(services, organization, rule.provider), rule.config), read: (raw) => linearIssue(raw, false) };
    case 'sprint_tracker':
      return { items: jiraIssues(outboundHttp(services), await credentials(services, organization, rule.provider), rule.config), read: (raw) => jiraIssue(raw, false) };
    case 'code_host': {
      const host = await codeHost(services, organization);
      return { items: githubIssues(services, host.installationId, githubQuery(rule.config, host.account)), read: (raw) => githubIssue(raw, undefined, false) };
    }
  }
}

export async function runImport(services: Services, organization: Organization, rule: ImportRule, now: Date): Promise<RunResult> {
  const counts: RunCounts = { fetched: 0, created: 0, updated: 0, unchanged: 0, ignored: 0, errors: 0 };
  try {
    const { items, read } = await source(services, organization, rule);
    for await (const raw of items) {
      counts.fetched++;
      const item = read(raw);
      if (!item) {
        counts.errors++;
        continue;
      }
      try {
        const result = await syncItem(services, organization, item, { name: 'import' }, now);
        if (result.status === 'ignored') counts.ignored++;
        else if (result.action === 'created') counts.created++;
        else if (result.action === 'unchanged') counts.unchanged++;
        else counts.updated++;
      } catch (error) {
        // a plan refusal (the ops board switched off) holds for every item: stop and say so
        if (error instanceof ApiError && error.code === 'plan_required') throw error;
        if (!services.outage.noted(error)) services.log.warn({ err: loggedError(error), provider: rule.provider }, 'ticket import: an item was not synced');
        counts.errors++;
      }
    }
    return { provider: rule.provider, counts };
  } catch (error) {
    if (error instanceof TrackerApiError) return { provider: rule.provider, counts: { ...counts, errors: counts.errors + 1 }, error: error.message };
    throw error;
  }
}
