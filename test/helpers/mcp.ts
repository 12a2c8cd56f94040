/** An agent's view of Vigil: the MCP SDK's own client over Streamable HTTP. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export type Agent = Awaited<ReturnType<typeof connectAgent>>;

export async function connectAgent(baseUrl: string, token: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: 'vigil-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } },
  });
  await client.connect(transport);
  return {
    client,
    /** calls a tool; answers its structuredContent and whether it is a tool error */
    async call(name: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean; body: any }> {
      const result = await client.callTool({ name, arguments: args });
      return { isError: result.isError === true, body: result.structuredContent };
    },
    close: () => client.close(),
  };
}
