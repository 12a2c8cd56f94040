/**
 * The world of the authorization matrix (test/engine/authorization-matrix*.test.ts): a served Vigil, organization A
 * seeded with a row of every family, organization B, a revoked key, a disabled organization's key, and every
 * route of the OpenAPI document. The matrix is split over files so each stays well inside the file timeout on a
 * loaded machine; each file builds its own world.
 */
import type { Test } from 'tap';
import { CONFIG, startVigil, type Client } from './harness.ts';
import type { Agent } from './mcp.ts';
import { seedOrganization } from './seed.ts';

export async function matrixWorld(t: Test) {
  const vigil = await startVigil();
  const agents: Agent[] = [];
  t.teardown(async () => {
    await Promise.all(agents.map((a) => a.close()));
    await vigil.close();
  });
  const ADMIN = '/api/admin/v1';

  const a = await vigil.organization('enterprise');
  const admin = await a.key(['api:admin']);
  const { ids } = await seedOrganization(admin);
  const b = await vigil.organization('enterprise');
  const other = await b.key(['api:admin']);

  async function personalToken(orgId: string, maxRole: string): Promise<string> {
    const user = await vigil.operator.post(`${ADMIN}/users`, { email: `matrix-${maxRole}-${Math.random().toString(36).slice(2)}@example.com` });
    await vigil.operator.put(`${ADMIN}/organizations/${orgId}/members/${user.body.id}`, { role: 'org_admin' });
    return (await vigil.operator.post(`${ADMIN}/users/${user.body.id}/tokens`, { name: 'matrix', organizations: [orgId], max_role: maxRole })).body.token;
  }

  const revoked = await a.key(['api:admin']);
  await vigil.operator.del(`${ADMIN}/organizations/${a.id}/api_keys/${revoked.keyId}`);
  const disabledOrg = await vigil.organization('enterprise');
  const disabledKey = await disabledOrg.key(['api:admin']);
  await vigil.operator.patch(`${ADMIN}/organizations/${disabledOrg.id}`, { disabled: true });

  const doc = (await admin.get(`${CONFIG}/openapi.json`)).body;
  /** The reference documents are public (they describe the API, hold no data); every other route needs a credential. */
  const PUBLIC = ['/openapi.json', '/docs'];
  const routes: { method: string; path: string }[] = [];
  for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
    if (PUBLIC.includes(path)) continue;
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) if (item[method]) routes.push({ method: method.toUpperCase(), path });
  }
  /** A read some role above viewer needs (the audit log: org admin) is refused as `forbidden`, naming that role. */
  const roleRefusal = (answer: { body: any }) => answer.body?.error === 'forbidden' && /needs the (member|org_admin) role/.test(answer.body.message);

  /** The route with a real row id of organization A where the family has one, else an id that exists nowhere. */
  function concrete(path: string): string {
    const family = path.split('/')[1] ?? '';
    return `${CONFIG}${path.replace(/\{[^}]+\}/g, ids[family] ?? 'no-such-row')}`;
  }

  const call = (c: Client, route: { method: string; path: string }, path = concrete(route.path)) =>
    c.call(route.method, path, route.method === 'GET' || route.method === 'DELETE' ? undefined : {});

  return { vigil, agents, a, admin, ids, other, personalToken, revoked, disabledKey, PUBLIC, routes, roleRefusal, call };
}
