import t from 'tap';
import codeHostSettings from '../../resources/code_host_settings.ts';
import serviceBindings from '../../resources/service_bindings.ts';
import ticketImportRules from '../../resources/ticket_import_rules.ts';
import ticketIntegrations from '../../resources/ticket_integrations.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';

const vigil = await startVigil({ extraFamilies: [serviceBindings, ticketIntegrations, codeHostSettings, ticketImportRules] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/code_host_settings`;
const DEFAULTS = {
  installation_id: null, account: null, default_branch: 'main', fix_pr_draft: true,
  fix_pr_labels: ['vigil'], fix_pr_reviewers: [], branch_prefix: 'vigil/fix-', updated_at: null,
};
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);
const auditOf = async (api: { get(path: string): Promise<{ body: any }> }) =>
  (await api.get(`${CONFIG}/audit_log`)).body.data.filter((e: { family: string }) => e.family === 'code_host_settings');

t.test('reads defaults before anything is saved, then changes only the sent fields', async (t) => {
  const api = await (await vigil.organization()).key();
  const first = await api.get(PATH);
  t.equal(first.status, 200);
  t.same(first.body.data, DEFAULTS, 'defaults, with updated_at null and no app connected');
  t.same(await auditOf(api), [], 'a read stores and audits nothing');
  t.equal((await api.get(`${PATH}/x`)).status, 404, 'the setting has no id');

  vigil.clock.advance(5 * 60_000);
  const saved = await api.put(PATH, { installation_id: '4815162342', account: 'acme', fix_pr_reviewers: ['alice', 'acme/sre'] });
  t.equal(saved.status, 200);
  t.same(saved.body.data, {
    ...DEFAULTS, installation_id: '4815162342', account: 'acme', fix_pr_reviewers: ['alice', 'acme/sre'], updated_at: '2026-03-01T12:05:00.000Z',
  }, 'only the sent fields change');

  vigil.clock.advance(60_000);
  const drafts = await api.put(PATH, { fix_pr_draft: false, fix_pr_labels: [] });
  t.equal(drafts.body.data.fix_pr_draft, false);
  t.same(drafts.body.data.fix_pr_labels, [], 'a sent list replaces the stored one');
  t.same(drafts.body.data.fix_pr_reviewers, ['alice', 'acme/sre'], 'an omitted list is kept');
  t.equal(drafts.body.data.installation_id, '4815162342');

  const disconnected = await api.put(PATH, { installation_id: null, account: null });
  t.equal(disconnected.body.data.installation_id, null, 'null disconnects the app');
  t.same((await api.get(PATH)).body.data, disconnected.body.data, 'a read answers what was saved');

  const audit = await auditOf(api);
  t.same(audit.map((e: { action: string }) => e.action), ['update', 'update', 'update'], 'every save is audited as an update, newest first');
  t.same(audit[2].changes, {
    installation_id: { before: null, after: '4815162342' }, account: { before: null, after: 'acme' }, fix_pr_reviewers: { before: [], after: ['alice', 'acme/sre'] },
  }, 'the first save is recorded against the defaults, with only what changed');
  t.same(audit[0].changes.installation_id, { before: '4815162342', after: null });
});

t.test('a PUT that changes nothing writes nothing', async (t) => {
  const api = await (await vigil.organization()).key();
  const untouched = await api.put(PATH, { default_branch: 'main', fix_pr_draft: true });
  t.equal(untouched.status, 200, 'sending the defaults before any save answers 200');
  t.equal(untouched.body.data.updated_at, null, 'and stores nothing');

  const saved = await api.put(PATH, { default_branch: 'trunk', branch_prefix: 'bot/' });
  t.equal(saved.body.data.updated_at, '2026-03-01T12:06:00.000Z');
  const audited = (await auditOf(api)).length;
  vigil.clock.advance(60 * 60_000);
  const same = await api.put(PATH, { default_branch: 'trunk', branch_prefix: 'bot/' });
  t.equal(same.status, 200);
  t.equal(same.body.data.updated_at, '2026-03-01T12:06:00.000Z', 'updated_at is unchanged');
  t.equal(same.headers.get('etag'), saved.headers.get('etag'), 'and so is the ETag');
  t.equal((await auditOf(api)).length, audited, 'no audit entry is recorded');
});

t.test('refusals', async (t) => {
  const org = await vigil.organization();
  const api = await org.key();
  const cases: [string, unknown, string][] = [
    ['an empty installation id', { installation_id: '' }, 'installation_id'],
    ['an installation id over 100 characters', { installation_id: '9'.repeat(101) }, 'installation_id'],
    ['an account over 200 characters', { account: 'a'.repeat(201) }, 'account'],
    ['an empty default branch', { default_branch: '' }, 'default_branch'],
    ['a branch name with a space', { default_branch: 'release candidate' }, 'default_branch'],
    ['a branch prefix with ".."', { branch_prefix: 'vigil/..fix' }, 'branch_prefix'],
    ['an empty label', { fix_pr_labels: [''] }, 'fix_pr_labels[0]'],
    ['21 labels', { fix_pr_labels: Array.from({ length: 21 }, (_, i) => `l${i}`) }, 'fix_pr_labels'],
    ['a repeated reviewer', { fix_pr_reviewers: ['alice', 'alice'] }, 'fix_pr_reviewers'],
    ['a draft flag that is no boolean', { fix_pr_draft: 'yes' }, 'fix_pr_draft'],
    ['updated_at, which is read-only', { updated_at: '2026-01-01T00:00:00Z' }, 'updated_at'],
  ];
  for (const [name, body, field] of cases) {
    const refused = await api.put(PATH, body);
    t.equal(refused.status, 422, `${name} is refused`);
    t.ok(fieldsOf(refused).includes(field), `${name}: the refusal names ${field}`);
  }
  t.same((await api.get(PATH)).body.data, DEFAULTS, 'refused writes stored nothing');

  const reader = await org.key(['api:config_read']);
  t.equal((await reader.get(PATH)).status, 200, 'a read-only key reads');
  const refused = await reader.put(PATH, { default_branch: 'trunk' });
  t.equal(refused.status, 403, 'a read-only key cannot change the settings');
  t.equal(refused.body.error, 'read_only_key');

  const stale = await api.put(PATH, { default_branch: 'trunk' }, { 'if-match': '"stale"' });
  t.equal(stale.status, 412, 'a stale If-Match is refused');
  t.same(stale.body.data, DEFAULTS, 'with the current settings');
  t.equal((await api.post(PATH, {})).status, 405, 'there is no create');
  t.equal((await api.del(PATH)).status, 405, 'nor a delete');
});
