/**
 * A fake GitHub REST API on 127.0.0.1 for tests, the parts Vigil's code-host app uses: the app's installation
 * token exchange (the JWT's RS256 signature is checked against the app's public key and its `iss` against the
 * app id), the git data API (refs, commits, trees, blobs), contents, and pull requests (with labels and
 * requested reviewers). Repositories are seeded with files; every request is recorded.
 *
 *   const gh = await startFakeGitHub({ appId: '4242', publicKey, installations: ['99'] });
 *   gh.addRepo('acme/checkout', { 'src/pay.ts': 'export const fee = 1;\n' });
 *   … codeHost: { apiUrl: gh.url, appId: '4242', privateKey } …
 *   gh.pulls('acme/checkout')           // every pull request opened, with draft, labels, reviewers
 *   gh.fileAt('acme/checkout', branch, 'src/pay.ts')
 */
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import http from 'node:http';

export interface FakePull {
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  draft: boolean;
  state: 'open' | 'closed';
  labels: string[];
  reviewers: string[];
  team_reviewers: string[];
  html_url: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  body: any;
  authorization: string | undefined;
}

interface Repo {
  branches: Map<string, string>;
  commits: Map<string, { tree: string; parents: string[]; message: string }>;
  trees: Map<string, Map<string, { sha: string; mode: string }>>;
  blobs: Map<string, Buffer>;
  pulls: FakePull[];
}

export type Override = (request: RecordedRequest) => { status: number; body?: unknown; headers?: Record<string, string> } | undefined;

export interface FakeGitHub {
  url: string;
  requests: RecordedRequest[];
  /** installation tokens handed out */
  tokensIssued: number;
  /** answers a request before the fake does (a failure, a redirect), or undefined to let it through */
  override: Override | undefined;
  /** delay every answer by this many ms */
  delayMs: number;
  addRepo(name: string, files: Record<string, string>, branch?: string): void;
  /** a pull request opened by someone else (it counts toward the open fix pull requests when its branch has the prefix) */
  addPull(repo: string, head: string, base?: string): FakePull;
  pulls(repo: string): FakePull[];
  closePull(repo: string, number: number): void;
  fileAt(repo: string, branch: string, path: string): string | undefined;
  branchExists(repo: string, branch: string): boolean;
  commitOf(repo: string, branch: string): { tree: string; parents: string[]; message: string } | undefined;
  close(): Promise<void>;
}

const sha = (...parts: string[]) => createHash('sha1').update(parts.join('\0')).digest('hex');

function verifyJwt(token: string, key: KeyObject, appId: string, now: () => number): boolean {
  const parts = token.split('.');
  if (parts.length !== 3) return false;
  const [header, payload, signature] = parts as [string, string, string];
  try {
    if (JSON.parse(Buffer.from(header, 'base64url').toString()).alg !== 'RS256') return false;
    if (!verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, 'base64url'))) return false;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const t = Math.floor(now() / 1000);
    // GitHub: iss the app id, at most 10 minutes of life, not expired
    return String(claims.iss) === appId && claims.exp - claims.iat <= 600 && claims.exp > t && claims.iat <= t + 60;
  } catch {
    return false;
  }
}

export async function startFakeGitHub(options: { appId: string; publicKey: string; installations: string[]; now?: () => number }): Promise<FakeGitHub> {
  const key = createPublicKey(options.publicKey);
  const now = options.now ?? (() => Date.now());
  const repos = new Map<string, Repo>();
  const tokens = new Set<string>();
  let pullNumber = 0;

  const treeOf = (repo: Repo, commit: string) => repo.trees.get(repo.commits.get(commit)?.tree ?? '');
  const fake: FakeGitHub = {
    url: '',
    requests: [],
    tokensIssued: 0,
    override: undefined,
    delayMs: 0,
    addRepo(name, files, branch = 'main') {
      const repo: Repo = { branches: new Map(), commits: new Map(), trees: new Map(), blobs: new Map(), pulls: [] };
      const tree = new Map<string, { sha: string; mode: string }>();
      for (const [path, content] of Object.entries(files)) {
        const blob = sha('blob', content);
        repo.blobs.set(blob, Buffer.from(content));
        tree.set(path, { sha: blob, mode: '100644' });
      }
      const treeSha = sha('tree', ...[...tree].map(([p, e]) => `${p}:${e.sha}`));
      repo.trees.set(treeSha, tree);
      const commit = sha('commit', treeSha, 'initial');
      repo.commits.set(commit, { tree: treeSha, parents: [], message: 'initial' });
      repo.branches.set(branch, commit);
      repos.set(name.toLowerCase(), repo);
    },
    addPull(name, head, base = 'main') {
      const repo = repos.get(name.toLowerCase())!;
      const pull: FakePull = {
        number: ++pullNumber, title: `someone's ${head}`, body: '', head, base, draft: false, state: 'open', labels: [], reviewers: [], team_reviewers: [],
        html_url: `https://github.example/${name}/pull/${pullNumber}`,
      };
      repo.pulls.push(pull);
      return pull;
    },
    pulls: (name) => repos.get(name.toLowerCase())?.pulls ?? [],
    closePull(name, number) {
      const pull = fake.pulls(name).find((p) => p.number === number);
      if (pull) pull.state = 'closed';
    },
    fileAt(name, branch, path) {
      const repo = repos.get(name.toLowerCase());
      const head = repo?.branches.get(branch);
      const entry = repo && head ? treeOf(repo, head)?.get(path) : undefined;
      return entry ? repo!.blobs.get(entry.sha)?.toString() : undefined;
    },
    branchExists: (name, branch) => repos.get(name.toLowerCase())?.branches.has(branch) ?? false,
    commitOf(name, branch) {
      const repo = repos.get(name.toLowerCase());
      const head = repo?.branches.get(branch);
      return head ? repo!.commits.get(head) : undefined;
    },
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };

  type Reply = { status: number; body?: unknown; headers?: Record<string, string> };
  const notFound: Reply = { status: 404, body: { message: 'Not Found' } };

  function route(req: RecordedRequest, query: URLSearchParams): Reply {
    const { method, path, body } = req;
    let m = /^\/app\/installations\/([^/]+)\/access_tokens$/.exec(path);
    if (m && method === 'POST') {
      const jwt = req.authorization?.replace(/^Bearer /, '') ?? '';
      if (!verifyJwt(jwt, key, options.appId, now)) return { status: 401, body: { message: 'A JSON web token could not be decoded' } };
      if (!options.installations.includes(decodeURIComponent(m[1]!))) return notFound;
      const token = `ghs_fake${sha('token', String(fake.tokensIssued++)).slice(0, 30)}`;
      tokens.add(token);
      return { status: 201, body: { token, expires_at: new Date(now() + 3_600_000).toISOString(), permissions: { contents: 'write', pull_requests: 'write' } } };
    }
    if (!tokens.has(req.authorization?.replace(/^Bearer /, '') ?? '')) return { status: 401, body: { message: 'Bad credentials' } };
    m = /^\/repos\/([^/]+)\/([^/]+)(\/.*)$/.exec(path);
    if (!m) return notFound;
    const name = `${decodeURIComponent(m[1]!)}/${decodeURIComponent(m[2]!)}`.toLowerCase();
    const repo = repos.get(name);
    if (!repo) return notFound;
    const rest = m[3]!;
    const decoded = (s: string) => s.split('/').map(decodeURIComponent).join('/');

    if ((m = /^\/git\/ref\/heads\/(.+)$/.exec(rest)) && method === 'GET') {
      const branch = decoded(m[1]!);
      const head = repo.branches.get(branch);
      return head ? { status: 200, body: { ref: `refs/heads/${branch}`, object: { sha: head, type: 'commit' } } } : notFound;
    }
    if ((m = /^\/git\/commits\/([0-9a-f]+)$/.exec(rest)) && method === 'GET') {
      const commit = repo.commits.get(m[1]!);
      return commit ? { status: 200, body: { sha: m[1], tree: { sha: commit.tree }, parents: commit.parents.map((p) => ({ sha: p })), message: commit.message } } : notFound;
    }
    if ((m = /^\/git\/trees\/([0-9a-f]+)$/.exec(rest)) && method === 'GET') {
      const tree = repo.trees.get(m[1]!);
      if (!tree) return notFound;
      const entries = [...tree].map(([p, e]) => ({ path: p, mode: e.mode, type: 'blob', sha: e.sha, size: repo.blobs.get(e.sha)?.length ?? 0 }));
      return { status: 200, body: { sha: m[1], tree: entries, truncated: false } };
    }
    if ((m = /^\/contents\/(.+)$/.exec(rest)) && method === 'GET') {
      const ref = query.get('ref') ?? 'main';
      const commit = repo.branches.get(ref) ?? ref;
      const entry = treeOf(repo, commit)?.get(decoded(m[1]!));
      if (!entry) return notFound;
      return { status: 200, body: { type: 'file', path: decoded(m[1]!), sha: entry.sha, encoding: 'base64', content: repo.blobs.get(entry.sha)!.toString('base64') } };
    }
    if (rest === '/git/blobs' && method === 'POST') {
      const content = Buffer.from(String(body?.content ?? ''), body?.encoding === 'base64' ? 'base64' : 'utf8');
      const blob = sha('blob', content.toString('latin1'));
      repo.blobs.set(blob, content);
      return { status: 201, body: { sha: blob } };
    }
    if (rest === '/git/trees' && method === 'POST') {
      const base = repo.trees.get(String(body?.base_tree));
      if (!base) return { status: 422, body: { message: 'base_tree is not a tree' } };
      const tree = new Map(base);
      for (const e of body.tree as { path: string; mode: string; sha: string }[]) {
        if (!repo.blobs.has(e.sha)) return { status: 422, body: { message: 'blob not found' } };
        tree.set(e.path, { sha: e.sha, mode: e.mode });
      }
      const treeSha = sha('tree', ...[...tree].map(([p, e]) => `${p}:${e.sha}`));
      repo.trees.set(treeSha, tree);
      return { status: 201, body: { sha: treeSha } };
    }
    if (rest === '/git/commits' && method === 'POST') {
      if (!repo.trees.has(String(body?.tree))) return { status: 422, body: { message: 'tree not found' } };
      const commit = sha('commit', String(body.tree), ...(body.parents ?? []), String(body.message), String(repo.commits.size));
      repo.commits.set(commit, { tree: String(body.tree), parents: body.parents ?? [], message: String(body.message) });
      return { status: 201, body: { sha: commit } };
    }
    if (rest === '/git/refs' && method === 'POST') {
      const branch = String(body?.ref ?? '').replace(/^refs\/heads\//, '');
      if (repo.branches.has(branch)) return { status: 422, body: { message: 'Reference already exists' } };
      if (!repo.commits.has(String(body?.sha))) return { status: 422, body: { message: 'Object does not exist' } };
      repo.branches.set(branch, String(body.sha));
      return { status: 201, body: { ref: body.ref, object: { sha: body.sha } } };
    }
    if ((m = /^\/git\/refs\/heads\/(.+)$/.exec(rest)) && method === 'PATCH') {
      const branch = decoded(m[1]!);
      if (!repo.branches.has(branch)) return { status: 422, body: { message: 'Reference does not exist' } };
      repo.branches.set(branch, String(body?.sha));
      return { status: 200, body: { ref: `refs/heads/${branch}`, object: { sha: body?.sha } } };
    }
    if (rest === '/pulls' && method === 'GET') {
      const head = query.get('head');
      const state = query.get('state') ?? 'open';
      let list = repo.pulls.filter((p) => state === 'all' || p.state === state);
      if (head) list = list.filter((p) => `${name.split('/')[0]}:${p.head}` === head.toLowerCase() || `${name.split('/')[0]}:${p.head}` === head);
      const perPage = Number(query.get('per_page') ?? 30);
      const page = Number(query.get('page') ?? 1);
      return { status: 200, body: list.slice((page - 1) * perPage, page * perPage).map((p) => ({ number: p.number, html_url: p.html_url, state: p.state, draft: p.draft, title: p.title, head: { ref: p.head }, base: { ref: p.base } })) };
    }
    if (rest === '/pulls' && method === 'POST') {
      const head = String(body?.head);
      if (!repo.branches.has(head)) return { status: 422, body: { message: 'Validation Failed', errors: [{ field: 'head', code: 'invalid' }] } };
      if (repo.pulls.some((p) => p.state === 'open' && p.head === head && p.base === body.base)) {
        return { status: 422, body: { message: 'Validation Failed', errors: [{ message: `A pull request already exists for ${head}.` }] } };
      }
      const pull: FakePull = {
        number: ++pullNumber, title: String(body.title), body: String(body.body ?? ''), head, base: String(body.base), draft: body.draft === true, state: 'open',
        labels: [], reviewers: [], team_reviewers: [], html_url: `https://github.example/${name}/pull/${pullNumber}`,
      };
      repo.pulls.push(pull);
      return { status: 201, body: { number: pull.number, html_url: pull.html_url, draft: pull.draft, state: 'open' } };
    }
    if ((m = /^\/pulls\/(\d+)$/.exec(rest)) && method === 'GET') {
      const pull = repo.pulls.find((p) => p.number === Number(m![1]));
      return pull ? { status: 200, body: { number: pull.number, html_url: pull.html_url, state: pull.state, draft: pull.draft, head: { ref: pull.head }, base: { ref: pull.base } } } : notFound;
    }
    if ((m = /^\/pulls\/(\d+)$/.exec(rest)) && method === 'PATCH') {
      const pull = repo.pulls.find((p) => p.number === Number(m![1]));
      if (!pull) return notFound;
      if (typeof body?.title === 'string') pull.title = body.title;
      if (typeof body?.body === 'string') pull.body = body.body;
      return { status: 200, body: { number: pull.number, html_url: pull.html_url } };
    }
    if ((m = /^\/issues\/(\d+)\/labels$/.exec(rest)) && method === 'POST') {
      const pull = repo.pulls.find((p) => p.number === Number(m![1]));
      if (!pull) return notFound;
      for (const l of body?.labels ?? []) if (!pull.labels.includes(l)) pull.labels.push(l);
      return { status: 200, body: pull.labels.map((l) => ({ name: l })) };
    }
    if ((m = /^\/pulls\/(\d+)\/requested_reviewers$/.exec(rest)) && method === 'POST') {
      const pull = repo.pulls.find((p) => p.number === Number(m![1]));
      if (!pull) return notFound;
      pull.reviewers.push(...(body?.reviewers ?? []));
      pull.team_reviewers.push(...(body?.team_reviewers ?? []));
      return { status: 201, body: { number: pull.number } };
    }
    return notFound;
  }

  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    const url = new URL(req.url ?? '/', 'http://fake');
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, body, authorization: req.headers.authorization };
    fake.requests.push(recorded);
    if (fake.delayMs) await new Promise((resolve) => setTimeout(resolve, fake.delayMs));
    const reply = fake.override?.(recorded) ?? route(recorded, url.searchParams);
    if (res.destroyed) return;
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return fake;
}
