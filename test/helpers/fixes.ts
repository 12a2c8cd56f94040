/**
 * Fix requests as the tests use them: a Vigil wired to a fake GitHub (the code-host app) and a fake
 * OpenAI-compatible provider (the platform provider), and organizations with the app installed and repositories
 * mapped, reached through the fix-requests webhook, the configuration API and the agent tools.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { ManualClock } from '../../engine/clock.ts';
import { startFakeGitHub, type FakeGitHub } from './fake-github.ts';
import { startFakeOpenAi, type FakeOpenAi, type FakeRequest } from './fake-openai.ts';
import { CONFIG, startVigil, type Storage, type Vigil } from './harness.ts';
import { waitFor } from './jobs.ts';
import { connectAgent } from './mcp.ts';

export const APP_ID = '4242';
export const INSTALLATION = '99';
const UA = { 'user-agent': 'vigil-fix-tests/1.0', 'content-type': 'application/json' };

/** The files a patch request showed the provider: `=== path ===` blocks of the user message. */
export function shownFiles(request: FakeRequest): Record<string, string> {
  const user = String(request.body?.messages?.find((m: any) => m.role === 'user')?.content ?? '');
  const files: Record<string, string> = {};
  for (const m of user.matchAll(/^=== (.+?) ===\n([\s\S]*?)\n=== end of \1 ===/gm)) files[m[1]!] = m[2]!;
  return files;
}

/** The default provider: declines when the description says DECLINE, otherwise patches the first file shown (fee = 1 → fee = 2). */
export function patchingProvider(request: FakeRequest): { content: string } {
  const user = String(request.body?.messages?.find((m: any) => m.role === 'user')?.content ?? '');
  if (user.includes('DECLINE')) return { content: JSON.stringify({ decision: 'decline', reason: 'The request does not describe a code change.' }) };
  const [path, content] = Object.entries(shownFiles(request))[0] ?? ['FIX.md', ''];
  const fixed = content.includes('fee = 1') ? content.replace('fee = 1', 'fee = 2') : `${content}\n// fixed\n`;
  return { content: JSON.stringify({ decision: 'patch', title: 'Fix the checkout fee', body: 'The fee was wrong.', files: [{ path, content: fixed }] }) };
}

export interface World {
  vigil: Vigil;
  github: FakeGitHub;
  ai: FakeOpenAi;
  privateKey: string;
  close(): Promise<void>;
}

/**
 * A Vigil with the code-host app and the platform provider pointed at fakes. `share` reuses another world's fakes
 * and app key (a second instance on the same database). With `storage`, tables the committed migrations do not
 * have yet are added (new tables only; nothing is dropped), so a restart finds them.
 */
export async function fixWorld(options: { runWorkers?: boolean; storage?: Storage; codeHost?: boolean; pkcs8?: boolean; share?: World } = {}): Promise<World> {
  let clock: ManualClock | undefined;
  let privateKey: string;
  let github: FakeGitHub;
  let ai: FakeOpenAi;
  if (options.share) ({ privateKey, github, ai } = options.share);
  else {
    const pair = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      // GitHub hands out PKCS#1 keys
      privateKeyEncoding: { type: options.pkcs8 ? 'pkcs8' : 'pkcs1', format: 'pem' },
    });
    privateKey = pair.privateKey;
    github = await startFakeGitHub({ appId: APP_ID, publicKey: pair.publicKey, installations: [INSTALLATION], now: () => clock?.now().getTime() ?? Date.now() });
    ai = await startFakeOpenAi();
    ai.respond = patchingProvider;
  }
  const vigil = await startVigil({
    publicUrl: 'https://vigil.example.com',
    codeHost: options.codeHost === false ? undefined : { apiUrl: github.url, appId: APP_ID, privateKey },
    ai: { baseUrl: ai.url, model: 'fake-model' },
    runWorkers: options.runWorkers,
    storage: options.storage,
  });
  clock = vigil.clock;
  return {
    vigil, github, ai, privateKey,
    async close() {
      await vigil.close();
      if (options.share) return;
      await github.close();
      await ai.close();
    },
  };
}

export interface RepoSetting {
  repo: string;
  services?: string[];
  labels?: string[];
  reviewers?: string[];
  fix_pull_requests_enabled?: boolean;
  default_branch?: string;
}

const open: { close(): Promise<void> }[] = [];

export async function closeFixOrgs(): Promise<void> {
  await Promise.all(open.splice(0).map((o) => o.close()));
}

export type FixOrg = Awaited<ReturnType<typeof fixOrg>>;

export async function fixOrg(
  world: World,
  options: { plan?: string; features?: Record<string, boolean>; installation?: string | null; account?: string; repos?: RepoSetting[]; codeHost?: Record<string, unknown> } = {},
) {
  const { vigil } = world;
  const org = await vigil.organization(options.plan ?? 'business', options.features);
  const api = await org.key(['api:admin']);
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
  const installation = options.installation === undefined ? INSTALLATION : options.installation;
  if (installation !== null) {
    const saved = await api.put(`${CONFIG}/code_host_settings`, { installation_id: installation, account: options.account ?? 'acme', ...options.codeHost });
    if (saved.status !== 200) throw new Error(`code_host_settings not saved: ${JSON.stringify(saved.body)}`);
  }
  for (const repo of options.repos ?? [{ repo: 'acme/checkout', services: ['checkout-api'] }]) {
    const saved = await api.post(`${CONFIG}/repo_settings`, repo);
    if (saved.status !== 201) throw new Error(`repo_settings not saved: ${JSON.stringify(saved.body)}`);
  }
  const url = `${vigil.url}/webhooks/fix-requests/${org.webhookToken}`;
  const made = {
    id: org.id,
    token: org.webhookToken,
    api,
    agent,
    /** posts a body as is (a string) or as JSON */
    async ask(body: unknown, headers: Record<string, string> = {}) {
      const res = await fetch(url, { method: 'POST', headers: { ...UA, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    /** get_fix_request through the agent-tool endpoint */
    async get(id: string) {
      const got = await agent.call('get_fix_request', { id });
      if (got.isError) throw new Error(JSON.stringify(got.body));
      return got.body.data;
    },
    async list(filters: Record<string, unknown> = {}) {
      const got = await agent.call('list_fix_requests', filters);
      if (got.isError) throw new Error(JSON.stringify(got.body));
      return got.body.data as any[];
    },
    /** waits until the request has an outcome (pr_opened, declined or failed) and answers it */
    async settled(id: string, ms = 30_000) {
      let last: any;
      await waitFor(async () => {
        last = await made.get(id);
        return last.status !== 'analyzing';
      }, `fix request ${id} to be analysed`, ms);
      return last;
    },
    async deliveries() {
      const got = await api.get(`${CONFIG}/webhook_deliveries?source=fix-requests&limit=200`);
      return got.body.data as any[];
    },
    close: () => agent.close(),
  };
  open.push(made);
  return made;
}
