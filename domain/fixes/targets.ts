/**
 * Which repository a fix request targets, and how pull requests are opened there, from the organization's
 * `code_host_settings` (the app installation; draft, labels, reviewers, branch prefix) and `repo_settings`
 * (repositories, the services they hold, their branch, labels and reviewers). Read through the registry's
 * descriptors, so these are exactly what the configuration API answers (defaults when never saved).
 *
 * Target rules (decisions where the spec is silent):
 * - `repo` pins the target: a repository with a `repo_settings` row, or one owned by the installation's
 *   `account` (the spec's "a repository without a row uses code_host_settings alone"). Anything else is 422
 *   `target_not_mapped`. When `service` is sent too it is context for the analysis, not a second pin.
 * - `service` alone: the repositories whose `services` name it exactly. None → `target_not_mapped`; more
 *   than one → `target_ambiguous` (send `repo` to choose; the candidates are named).
 * - neither: the organization's only repository with fix pull requests enabled; none or several →
 *   `target_required`.
 * - A repository whose row has `fix_pull_requests_enabled: false` → `fix_pull_requests_disabled`.
 */
import { ApiError } from '../../engine/errors.ts';
import { codeHostSettings } from '../../outbound/net/code-host-app.ts';
import { defaultRow } from '../../engine/operations/project.ts';
import type { Services } from '../../engine/services.ts';
import type { Row } from '../../engine/descriptor.ts';
import type { FamilyStore } from '../../engine/persistence/store.ts';
import codeHostSettingsFamily from '../../resources/code_host_settings.ts';
import repoSettings from '../../resources/repo_settings.ts';


/** How pull requests are opened in the target repository: code_host_settings with the repository's row over it. */
export interface PullRequestSettings {
  installationId: string | null;
  account: string | null;
  /** the branch the pull request targets: the repository row's, else code_host_settings' */
  baseBranch: string;
  branchPrefix: string;
  draft: boolean;
  /** code_host_settings' labels then the repository's, without repeats */
  labels: string[];
  reviewers: string[];
}

export interface Target {
  repo: string;
  via: 'repo' | 'service' | 'only_mapped_repo';
  settings: PullRequestSettings;
}

/** A 422 that names why the request cannot be served: `{ error: "validation_failed", message, reason }`. */
export function refusedFor(reason: string, message: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError('validation_failed', message, { extra: { reason, ...extra } });
}

const list = (v: unknown): string[] => {
  const parsed = typeof v === 'string' ? JSON.parse(v) : v;
  return Array.isArray(parsed) ? parsed.filter((s): s is string => typeof s === 'string') : [];
};

const merged = (...lists: string[][]) => [...new Set(lists.flat())];

export interface RepoRow {
  repo: string;
  services: string[];
  default_branch: string;
  fix_pull_requests_enabled: boolean;
  reviewers: string[];
  labels: string[];
}

/** The organization's code-host settings (defaults when never saved) and its repository rows. */
export async function readSettings(services: Services, store: FamilyStore, organizationId: string): Promise<{ codeHost: Row; repos: RepoRow[] }> {
  const codeHostFamily = services.registry.family(codeHostSettingsFamily);
  const stored = (await store.get(codeHostFamily, organizationId, organizationId)) ?? {};
  const defaults = defaultRow(codeHostFamily);
  const codeHost = Object.fromEntries(Object.keys(defaults).map((k) => [k, stored[k] ?? defaults[k]]));
  const rows = await store.list(services.registry.family(repoSettings), organizationId);
  const repos = rows.map((r) => ({
    repo: String(r.repo).toLowerCase(),
    services: list(r.services),
    default_branch: String(r.default_branch ?? 'main'),
    fix_pull_requests_enabled: r.fix_pull_requests_enabled !== false,
    reviewers: list(r.reviewers),
    labels: list(r.labels),
  }));
  return { codeHost, repos };
}

export function pullRequestSettings(codeHost: Row, row: RepoRow | undefined): PullRequestSettings {
  return {
    installationId: (codeHost.installation_id as string | null) ?? null,
    account: (codeHost.account as string | null) ?? null,
    baseBranch: row?.default_branch ?? String(codeHost.default_branch ?? 'main'),
    branchPrefix: String(codeHost.branch_prefix ?? 'vigil/fix-'),
    draft: codeHost.fix_pr_draft !== false,
    labels: merged(list(codeHost.fix_pr_labels), row?.labels ?? []),
    reviewers: merged(list(codeHost.fix_pr_reviewers), row?.reviewers ?? []),
  };
}

/** The target of a request; throws the 422 refusals above. `repo` arrives lowercased. */
export async function resolveTarget(
  services: Services, store: FamilyStore, organizationId: string, input: { service: string | null; repo: string | null },
): Promise<Target> {
  const { codeHost, repos } = await readSettings(services, store, organizationId);
  if (!codeHostSettings(services).configured) {
    throw refusedFor('code_host_app_not_installed', 'This deployment has no code-host app configured (VIGIL_CODE_HOST_APP_ID and VIGIL_CODE_HOST_APP_PRIVATE_KEY), so no fix pull request can be opened.');
  }
  if (!codeHost.installation_id) {
    throw refusedFor('code_host_app_not_installed', 'The code-host app is not installed for this organization: install it and save its installation_id in code_host_settings, then ask again.');
  }
  const enabled = (row: RepoRow) => {
    if (!row.fix_pull_requests_enabled) {
      throw refusedFor('fix_pull_requests_disabled', `Fix pull requests are switched off for ${row.repo} (repo_settings fix_pull_requests_enabled is false).`, { repo: row.repo });
    }
    return row;
  };
  const target = (repo: string, via: Target['via'], row: RepoRow | undefined): Target => ({ repo, via, settings: pullRequestSettings(codeHost, row) });

  if (input.repo !== null) {
    const row = repos.find((r) => r.repo === input.repo);
    if (row) return target(row.repo, 'repo', enabled(row));
    const account = typeof codeHost.account === 'string' ? codeHost.account.toLowerCase() : null;
    if (account && input.repo.split('/')[0] === account) return target(input.repo, 'repo', undefined);
    throw refusedFor('target_not_mapped', 'The repo matches nothing mapped: it has no repo_settings row and is not under the code-host app installation\'s account.');
  }
  if (input.service !== null) {
    const rows = repos.filter((r) => r.services.includes(input.service!));
    if (rows.length === 0) {
      throw refusedFor('target_not_mapped', 'The service matches nothing mapped: no repo_settings row names it in services. Name the repo, or map the service to its repository.');
    }
    const open = rows.filter((r) => r.fix_pull_requests_enabled);
    if (open.length === 0) enabled(rows[0]!);
    if (open.length > 1) {
      throw refusedFor('target_ambiguous', `The service is mapped to ${open.length} repositories; name the one to fix with repo.`, { candidates: open.map((r) => r.repo).sort() });
    }
    return target(open[0]!.repo, 'service', open[0]);
  }
  const open = repos.filter((r) => r.fix_pull_requests_enabled);
  if (open.length === 1) return target(open[0]!.repo, 'only_mapped_repo', open[0]);
  throw refusedFor(
    'target_required',
    open.length === 0
      ? 'Name the service or repo to fix: this organization maps no repository in repo_settings.'
      : `Name the service or repo to fix: this organization maps ${open.length} repositories.`,
  );
}

/** The pull-request settings of a request's repository as they are now (the worker reads them again). */
export async function currentSettings(services: Services, store: FamilyStore, organizationId: string, repo: string): Promise<PullRequestSettings> {
  const { codeHost, repos } = await readSettings(services, store, organizationId);
  return pullRequestSettings(codeHost, repos.find((r) => r.repo === repo));
}
