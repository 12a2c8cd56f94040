/** repo_settings: owner/name repositories, case-insensitive natural key, lists without repeats. */
import t from 'tap';
import repoSettings from '../../resources/repo_settings.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';

const vigil = await startVigil({ extraFamilies: [repoSettings] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/repo_settings`;
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);

t.test('a repository\'s settings: defaults, lowercased owner/name, conflicts without regard to case', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, { repo: 'Acme/Checkout.Web' });
  t.equal(made.status, 201);
  t.match(made.body.data, { repo: 'acme/checkout.web', services: [], default_branch: 'main', fix_pull_requests_enabled: true, reviewers: [], labels: [] });
  const dup = await api.post(PATH, { repo: 'ACME/checkout.web', services: ['web'] });
  t.equal(dup.status, 409, 'the same repository in other letters is a conflict');
  t.equal(dup.body.data.id, made.body.data.id);
  const path = `${PATH}/${made.body.data.id}`;
  t.same(fieldsOf(await api.put(path, { repo: 'acme/other' })), ['repo'], 'the repository is set on create only');
  const updated = await api.put(path, { services: ['web', 'web-worker'], reviewers: ['alice', 'acme/sre'], labels: ['vigil'], fix_pull_requests_enabled: false });
  t.match(updated.body.data, { services: ['web', 'web-worker'], reviewers: ['alice', 'acme/sre'], labels: ['vigil'], fix_pull_requests_enabled: false });
  t.same((await api.put(path, { services: ['web'] })).body.data.reviewers, ['alice', 'acme/sre'], 'omitted lists are kept');
  t.same((await api.get(path)).body.data.services, ['web'], 'a sent list replaces the stored one');
});

t.test('a repository not written owner/name is refused', async (t) => {
  const api = await (await vigil.organization()).key();
  for (const repo of ['checkout', 'acme/', '/checkout', 'acme/checkout/web', 'acme checkout/web', 'https://code.example.com/acme/checkout', '-acme/checkout']) {
    const refused = await api.post(PATH, { repo });
    t.equal(refused.status, 422, `${repo} is refused`);
    t.same(fieldsOf(refused), ['repo']);
    t.match(refused.body.errors[0].message, /owner\/name/);
  }
  t.same((await api.get(PATH)).body.data, [], 'nothing was stored');
});

t.test('lists: no repeats, limits by index', async (t) => {
  const api = await (await vigil.organization()).key();
  const cases: [unknown, string[]][] = [
    [{ services: ['api', 'worker', 'api'] }, ['services']],
    [{ services: ['api', 's'.repeat(201)] }, ['services[1]']],
    [{ services: Array.from({ length: 51 }, (_, i) => `s${i}`) }, ['services']],
    [{ reviewers: ['alice', 'alice'] }, ['reviewers']],
    [{ reviewers: ['acme/sre', 'team with spaces'] }, ['reviewers[1]']],
    [{ labels: ['ok', ''] }, ['labels[1]']],
    [{ default_branch: 'fix..it' }, ['default_branch']],
  ];
  for (const [body, fields] of cases) {
    const refused = await api.post(PATH, { repo: 'acme/api', ...(body as object) });
    t.equal(refused.status, 422);
    t.same(fieldsOf(refused), fields, `${JSON.stringify(body).slice(0, 60)} names ${fields.join(', ')}`);
  }
  t.equal((await api.post(PATH, { repo: 'acme/api', services: ['api', 'API'] })).status, 201, 'service names are compared as written');
});
