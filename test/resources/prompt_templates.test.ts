/** prompt_templates: one per purpose, placeholders computed and checked per purpose, the bring-your-own AI feature. */
import t from 'tap';
import promptTemplates from '../../resources/prompt_templates.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil({ extraFamilies: [promptTemplates] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/prompt_templates`;
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);

t.test('one template per purpose, addressed by the purpose; placeholders are read off the template', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, { purpose: 'investigation', template: 'For {{organization}}: {{ alert_title }} on {{service}}. Again {{service}}.' });
  t.equal(made.status, 201);
  t.same(made.body.data, {
    id: 'investigation', purpose: 'investigation', template: 'For {{organization}}: {{ alert_title }} on {{service}}. Again {{service}}.',
    placeholders: ['organization', 'alert_title', 'service'], enabled: true, created_at: '2026-03-01T12:00:00.000Z', updated_at: '2026-03-01T12:00:00.000Z',
  }, 'each placeholder once, in order of first use');
  t.equal(made.headers.get('location'), `${vigil.url}${PATH}/investigation`);
  const path = `${PATH}/investigation`;
  t.equal((await api.post(PATH, { purpose: 'investigation', template: 'other' })).status, 409, 'a second template for the purpose is a conflict');
  const updated = await api.put(path, { template: 'Plain text now.' });
  t.same(updated.body.data.placeholders, [], 'placeholders follow the template');
  t.same(fieldsOf(await api.put(path, { purpose: 'suggestion' })), ['purpose'], 'the purpose is set on create only');
  t.same(fieldsOf(await api.put(path, { placeholders: ['service'] })), ['placeholders'], 'placeholders are read-only');
  t.equal((await api.get(`${PATH}/suggestion`)).status, 404, 'a purpose without a template is not found');
});

t.test('a placeholder the purpose does not offer is refused by name', async (t) => {
  const api = await (await vigil.organization()).key();
  const refused = await api.post(PATH, { purpose: 'finops', template: 'Spend of {{service}} in {{repository}} by {{customer}}' });
  t.equal(refused.status, 422);
  t.same(fieldsOf(refused), ['template', 'template'], 'one error per unknown placeholder');
  t.match(refused.body.errors[0].message, /\{\{repository\}\}.*finops/);
  t.match(refused.body.errors[1].message, /\{\{customer\}\}/);
  t.match(refused.body.errors[0].message, /offers organization, service, alert_title/, 'the message lists what the purpose offers');
  t.equal((await api.post(PATH, { purpose: 'pr_review', template: 'Review {{diff}} of {{repository}}' })).status, 201, 'code purposes offer repository and diff');
  const odd = await api.post(PATH, { purpose: 'suggestion', template: 'Hi {{ not a name! }}' });
  t.same(fieldsOf(odd), ['template']);
  t.notMatch(odd.body.errors[0].message, 'not a name!', 'a token that is no name is not repeated');
  t.same(fieldsOf(await api.put(`${PATH}/pr_review`, { template: '{{Diff}}' })), ['template'], 'names are lowercase, and updates are checked too');
  const agent = await connectAgent(vigil.url, (await (await vigil.organization()).key(['mcp:write'])).token);
  const tool = await agent.call('create_prompt_template', { purpose: 'oversight', template: 'Judge {{diff}}' });
  t.ok(tool.isError, 'the agent-tool endpoint refuses the same way');
  t.same(tool.body.errors.map((e: { field: string }) => e.field), ['template']);
  await agent.close();
});

t.test('create and update need bring-your-own AI providers; delete does not', async (t) => {
  const org = await vigil.organization();
  const api = await org.key();
  t.equal((await api.post(PATH, { purpose: 'suggestion', template: 'Suggest for {{service}}' })).status, 201);
  await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { features: { byo_ai_provider: false } });
  const create = await api.post(PATH, { purpose: 'finops', template: 'x' });
  t.equal(create.status, 403);
  t.equal(create.body.error, 'plan_required');
  t.match(create.body.message, /not included in the business plan/);
  t.equal((await api.put(`${PATH}/suggestion`, { enabled: false })).body.error, 'plan_required');
  t.equal((await api.get(PATH)).body.data.length, 1, 'the template still reads');
  t.equal((await api.del(`${PATH}/suggestion`)).status, 204, 'and can be removed, back to the built-in prompt');
});
