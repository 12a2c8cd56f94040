/**
 * The authorization matrix (this file: the public documents and every wrong credential on every route;
 * authorization-matrix-roles.test.ts: read-only keys, role ceilings and other organizations' ids): every route of the OpenAPI document and every agent tool, against every kind of
 * credential, with the exact answer each must give. Ids of another organization's rows answer exactly as an id
 * that exists nowhere, so existence is never revealed.
 *
 * Configuration API: no credential, an unknown key, a revoked key and the operator token → 401 `unauthorized`;
 * an `mcp:*` key → 403 `forbidden`; a personal token → 403 `personal_token_not_accepted`; a disabled
 * organization's key → 403 `organization_disabled`; a read-only key reads (except what needs a higher role, which
 * says so) and every write is 403 `read_only_key`. The reference documents (OpenAPI, docs) are public.
 * Agent-tool endpoint: no credential or an `api:*` key → HTTP 401 / 403; `mcp:read` → every write tool refused with
 * `read_only_key`, a read tool refused only when it needs a higher role (the audit log), saying which; a personal token with the viewer ceiling → every write tool
 * `forbidden`; with the member ceiling → only tools that need org admin refused, each saying so.
 */
import t from 'tap';
import { CONFIG, client, type Client } from '../helpers/harness.ts';
import { matrixWorld } from '../helpers/authorization-matrix.ts';

const { vigil, a, revoked, disabledKey, PUBLIC, routes, personalToken, call } = await matrixWorld(t);

t.test('the reference documents are public', async (t) => {
  for (const path of PUBLIC) t.equal((await client(vigil.url).get(`${CONFIG}${path}`)).status, 200, path);
});

t.test('configuration API: every route refuses every wrong credential with the exact answer', async (t) => {
  const cases: [string, Client, number, string][] = [
    ['no credential', client(vigil.url), 401, 'unauthorized'],
    ['an unknown key', client(vigil.url, 'vigil_ak_not_a_key'), 401, 'unauthorized'],
    ['a revoked key', client(vigil.url, revoked.token), 401, 'unauthorized'],
    ['the operator token', client(vigil.url, 'test-operator-token'), 401, 'unauthorized'],
    ['an mcp:admin key', client(vigil.url, (await a.key(['mcp:admin'])).token), 403, 'forbidden'],
    ['a personal token', client(vigil.url, await personalToken(a.id, 'unlimited')), 403, 'personal_token_not_accepted'],
    ["a disabled organization's key", client(vigil.url, disabledKey.token), 403, 'organization_disabled'],
  ];
  t.ok(routes.length > 50, `${routes.length} routes`);
  for (const [name, c, status, error] of cases) {
    const wrong: string[] = [];
    for (const route of routes) {
      const answer = await call(c, route);
      if (answer.status !== status || answer.body?.error !== error) wrong.push(`${route.method} ${route.path}: ${answer.status} ${answer.body?.error}`);
    }
    t.same(wrong, [], `${name}: ${status} ${error} on every route`);
  }
});

