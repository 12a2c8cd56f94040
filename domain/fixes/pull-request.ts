/**
 * The code-host side of an analysis, through the REST API (GitHub's shape) as the organization's app
 * installation: read the base branch's tree and files, count the open fix pull requests, and publish a patch.
 *
 * Publishing: one blob per file, a tree over the base commit's tree, a commit whose parent is the base branch's
 * head, then the request's branch (`branch_prefix` + request id) is created or moved to that commit (forced: a
 * repeat's new analysis replaces the earlier commit rather than stacking on it), then the pull request: the open
 * one whose head is that branch is updated (title, body), otherwise one is opened (`draft` as configured); when
 * two analyses race to open it, the code host refuses the second (one pull request per head and base) and the
 * loser updates the winner's. Labels and reviewers are added afterwards; a refusal there (an unknown reviewer,
 * say) is a warning on the timeline, not a failure, because the pull request exists.
 */
import { CodeHostError, repoPath, type CodeHost } from '../../outbound/net/code-host-app.ts';
import type { ShownFile, TreeEntry } from './patch.ts';
import { MAX_FILE_BYTES, MAX_FILES, MAX_TOTAL_BYTES } from './patch.ts';

export interface Snapshot {
  baseSha: string;
  treeSha: string;
  tree: TreeEntry[];
  /** the code host cut the recursive listing short */
  truncated: boolean;
  /** file modes by path (an executable keeps 100755) */
  modes: Map<string, string>;
}

const segments = (path: string) => path.split('/').map(encodeURIComponent).join('/');

export async function readRepository(host: CodeHost, repo: string, baseBranch: string): Promise<Snapshot> {
  const base = repoPath(repo);
  const ref = await host.request('GET', `${base}/git/ref/heads/${segments(baseBranch)}`, undefined, [404]);
  if (ref.status === 404) throw new CodeHostError('http', `The branch fix pull requests target (${baseBranch}) does not exist in ${repo}, or the app cannot see the repository.`, 404);
  const baseSha = String(ref.body?.object?.sha ?? '');
  const commit = await host.request('GET', `${base}/git/commits/${encodeURIComponent(baseSha)}`);
  const treeSha = String(commit.body?.tree?.sha ?? '');
  if (!baseSha || !treeSha) throw new CodeHostError('answer', `The code host's answer for ${repo}'s branch ${baseBranch} names no commit or tree.`);
  const listing = await host.request('GET', `${base}/git/trees/${encodeURIComponent(treeSha)}?recursive=1`);
  const entries: { path?: unknown; type?: unknown; size?: unknown; mode?: unknown }[] = Array.isArray(listing.body?.tree) ? listing.body.tree : [];
  const tree: TreeEntry[] = [];
  const modes = new Map<string, string>();
  for (const e of entries) {
    if (e.type !== 'blob' || typeof e.path !== 'string') continue;
    tree.push({ path: e.path, size: Number(e.size ?? 0) });
    modes.set(e.path, typeof e.mode === 'string' ? e.mode : '100644');
  }
  return { baseSha, treeSha, tree, truncated: listing.body?.truncated === true, modes };
}

/** The chosen files' text at the base commit, within the byte budget; binary files are skipped. */
export async function readFiles(host: CodeHost, repo: string, sha: string, paths: string[]): Promise<ShownFile[]> {
  const files: ShownFile[] = [];
  let total = 0;
  for (const path of paths) {
    if (files.length >= MAX_FILES) break;
    const res = await host.request('GET', `${repoPath(repo)}/contents/${segments(path)}?ref=${encodeURIComponent(sha)}`, undefined, [404]);
    if (res.status === 404 || res.body?.encoding !== 'base64' || typeof res.body?.content !== 'string') continue;
    const bytes = Buffer.from(res.body.content, 'base64');
    if (bytes.length > MAX_FILE_BYTES || total + bytes.length > MAX_TOTAL_BYTES || bytes.includes(0)) continue;
    const content = bytes.toString('utf8');
    if (content.includes('\uFFFD')) continue;
    files.push({ path, content });
    total += bytes.length;
  }
  return files;
}

export interface OpenPullRequest {
  number: number;
  branch: string;
}

/** Open pull requests whose head branch starts with the prefix (the fix pull requests), up to 300 looked at. */
export async function openFixPullRequests(host: CodeHost, repo: string, branchPrefix: string): Promise<OpenPullRequest[]> {
  const found: OpenPullRequest[] = [];
  for (let page = 1; page <= 3; page++) {
    const res = await host.request('GET', `${repoPath(repo)}/pulls?state=open&per_page=100&page=${page}`);
    const pulls: { number?: unknown; head?: { ref?: unknown } }[] = Array.isArray(res.body) ? res.body : [];
    for (const p of pulls) {
      const branch = typeof p.head?.ref === 'string' ? p.head.ref : '';
      if (branch.startsWith(branchPrefix)) found.push({ number: Number(p.number), branch });
    }
    if (pulls.length < 100) break;
  }
  return found;
}

export interface Publication {
  branch: string;
  baseBranch: string;
  snapshot: Snapshot;
  files: ShownFile[];
  title: string;
  body: string;
  commitMessage: string;
  draft: boolean;
  labels: string[];
  reviewers: string[];
}

export interface Published {
  url: string;
  number: number;
  /** false: the open pull request of the branch was updated */
  created: boolean;
  commit: string;
  warnings: string[];
}

const owner = (repo: string) => repo.split('/')[0]!;

async function findOpen(host: CodeHost, repo: string, branch: string): Promise<{ number: number; html_url: string } | null> {
  const head = new URLSearchParams({ state: 'open', head: `${owner(repo)}:${branch}` });
  const res = await host.request('GET', `${repoPath(repo)}/pulls?${head}`);
  const first = Array.isArray(res.body) ? res.body[0] : undefined;
  return first && typeof first.number === 'number' ? { number: first.number, html_url: String(first.html_url) } : null;
}

export async function publish(host: CodeHost, repo: string, p: Publication): Promise<Published> {
  const base = repoPath(repo);
  const tree = [];
  for (const file of p.files) {
    const blob = await host.request('POST', `${base}/git/blobs`, { content: Buffer.from(file.content, 'utf8').toString('base64'), encoding: 'base64' });
    tree.push({ path: file.path, mode: p.snapshot.modes.get(file.path) ?? '100644', type: 'blob', sha: String(blob.body?.sha) });
  }
  const newTree = await host.request('POST', `${base}/git/trees`, { base_tree: p.snapshot.treeSha, tree });
  const commit = await host.request('POST', `${base}/git/commits`, { message: p.commitMessage, tree: String(newTree.body?.sha), parents: [p.snapshot.baseSha] });
  const sha = String(commit.body?.sha);

  const refPath = `${base}/git/refs/heads/${segments(p.branch)}`;
  const existing = await host.request('GET', `${base}/git/ref/heads/${segments(p.branch)}`, undefined, [404]);
  if (existing.status === 404) {
    const made = await host.request('POST', `${base}/git/refs`, { ref: `refs/heads/${p.branch}`, sha }, [422]);
    // created meanwhile by a racing analysis: move it
    if (made.status === 422) await host.request('PATCH', refPath, { sha, force: true });
  } else {
    await host.request('PATCH', refPath, { sha, force: true });
  }

  let pull = await findOpen(host, repo, p.branch);
  let created = false;
  if (pull) {
    await host.request('PATCH', `${base}/pulls/${pull.number}`, { title: p.title, body: p.body });
  } else {
    const opened = await host.request('POST', `${base}/pulls`, { title: p.title, head: p.branch, base: p.baseBranch, body: p.body, draft: p.draft }, [422]);
    if (opened.status === 422) {
      pull = await findOpen(host, repo, p.branch);
      if (!pull) throw new CodeHostError('http', `The code host refused to open the pull request (HTTP 422${opened.body?.message ? `: ${String(opened.body.message).slice(0, 200)}` : ''}).`, 422);
      await host.request('PATCH', `${base}/pulls/${pull.number}`, { title: p.title, body: p.body });
    } else {
      pull = { number: Number(opened.body?.number), html_url: String(opened.body?.html_url) };
      created = true;
    }
  }

  const warnings: string[] = [];
  if (p.labels.length) {
    try {
      await host.request('POST', `${base}/issues/${pull.number}/labels`, { labels: p.labels });
    } catch (error) {
      if (!(error instanceof CodeHostError)) throw error;
      warnings.push(`labels not added: ${error.message}`);
    }
  }
  if (p.reviewers.length) {
    const users = p.reviewers.filter((r) => !r.includes('/'));
    const teams = p.reviewers.filter((r) => r.includes('/')).map((r) => r.slice(r.indexOf('/') + 1));
    try {
      await host.request('POST', `${base}/pulls/${pull.number}/requested_reviewers`, { reviewers: users, team_reviewers: teams });
    } catch (error) {
      if (!(error instanceof CodeHostError)) throw error;
      warnings.push(`reviewers not requested: ${error.message}`);
    }
  }
  return { url: pull.html_url, number: pull.number, created, commit: sha, warnings };
}
