/** An organization's ops board as the tests use it: the tickets webhook through HTTP, the agent tools, the delivery log. */
import { CONFIG, type Vigil } from './harness.ts';
import { connectAgent } from './mcp.ts';

const UA = { 'user-agent': 'vigil-board-tests/1.0', 'content-type': 'application/json' };

const open: { close(): Promise<void> }[] = [];

/** closes every board's agent connections (a test file's teardown, before the service stops) */
export async function closeBoards(): Promise<void> {
  await Promise.all(open.splice(0).map((b) => b.close()));
}

export type Board = Awaited<ReturnType<typeof board>>;

export async function board(vigil: Vigil, options: { name?: string; plan?: string; features?: Record<string, boolean> } = {}) {
  const org = await vigil.organization(options.plan ?? 'business', options.features);
  if (options.name) await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { name: options.name });
  const api = await org.key(['api:admin']);
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:read'])).token);
  const writer = await connectAgent(vigil.url, (await org.key(['mcp:write'])).token);
  const base = `${vigil.url}/webhooks/tickets/${org.webhookToken}`;
  /** posts a body as is (a string) or as JSON */
  const raw = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { ...UA, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };
  const strip = (a: Awaited<ReturnType<typeof raw>>) => ({ status: a.status, body: a.body });
  const made = {
    id: org.id,
    token: org.webhookToken,
    api,
    agent,
    writer,
    raw,
    open: async (body: unknown, headers?: Record<string, string>) => strip(await raw('', body, headers)),
    update: async (card: string, body: unknown, headers?: Record<string, string>) => strip(await raw(`/${card}`, body, headers)),
    comment: async (card: string, body: unknown, headers?: Record<string, string>) => strip(await raw(`/${card}/comments`, body, headers)),
    /** the card with its comments and effects (get_card) */
    async card(ref: string) {
      const got = await agent.call('get_card', { card: ref });
      if (got.isError) throw new Error(JSON.stringify(got.body));
      return got.body.data;
    },
    async deliveries() {
      const got = await api.get(`${CONFIG}/webhook_deliveries?source=tickets&limit=200`);
      return got.body.data;
    },
    async close() {
      await agent.close();
      await writer.close();
    },
  };
  open.push(made);
  return made;
}
