/**
 * `vigil import pagerduty` against a local PagerDuty (test/helpers/pagerduty-server.ts: its documented REST API,
 * paginated, one 429 with Retry-After), then `vigil users import`, `vigil plan` and `vigil apply` into a started
 * service; the proof that the schedules came across is PagerDuty's own /oncalls answer at 30 instants compared with
 * Vigil's who-is-on-call. Refusals of the source stop the import with one sentence and leave the folder as it was.
 */
import t from 'tap';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importPagerDuty, PRODUCT } from '../../importers/pagerduty.ts';
import { renderFiles } from '../../importers/core.ts';
import { runEscalations } from '../../domain/paging/escalations.ts';
import { folderFiles, runCli } from '../helpers/cli.ts';
import { alertmanager } from '../helpers/outbound.ts';
import { CONFIG, OPERATOR_TOKEN, startVigil } from '../helpers/harness.ts';
import { PD_TOKEN, startPagerDuty } from '../helpers/pagerduty-server.ts';

const AS_OF = '2027-01-10T00:00:00Z';
const pd = await startPagerDuty();
const vigil = await startVigil();
t.teardown(async () => {
  await vigil.close();
  await pd.close();
});
const org = await vigil.organization('business');
const key = await org.key();
const root = await mkdtemp(join(tmpdir(), 'vigil-import-'));
const out = join(root, 'pd');
const importArgs = (dir = out, token = PD_TOKEN) => ['import', 'pagerduty', '--url', pd.url, '--token', token, '--out', dir, '--as-of', AS_OF];
const vigilCli = (args: string[]) => runCli(args, { VIGIL_URL: vigil.url, VIGIL_ADMIN_TOKEN: OPERATOR_TOKEN, VIGIL_API_KEY: key.token });
const writeText = async (file: string, text: string) => (await writeFile(file, text), file);
const files = folderFiles;

t.test('the import reads every page, waits out the 429 as asked, and gives the same files twice', async (t) => {
  const waits: number[] = [];
  const first = await importPagerDuty({ url: pd.url, token: PD_TOKEN, now: new Date(AS_OF), sleep: async (ms) => void waits.push(ms) });
  t.same(waits, [7000], 'the one 429 is waited out for its Retry-After (7 s), then the call is made again');
  t.ok(pd.requests.some((r) => r.startsWith('GET /users?') && r.includes('offset=0')) && pd.requests.filter((r) => r.startsWith('GET /escalation_policies')).length === 2, 'policies asked twice: the 429, then the page');
  const people = first.people.people;
  t.equal(people.length, 40, 'forty people');
  t.match(people.find((p) => p.email === 'ana.silva@example.com'), { role: 'org_admin', contact_methods: [{ type: 'email' }, { type: 'voice', address: '+14155552600' }, { type: 'sms' }] });
  const text = renderFiles(PRODUCT, pd.url, first);
  pd.rearm();
  const second = renderFiles(PRODUCT, pd.url, await importPagerDuty({ url: pd.url, token: PD_TOKEN, now: new Date(AS_OF), sleep: async () => {} }));
  t.same(second, text, 'a second run writes the same three files, byte for byte');
  const report = text['REPORT.md']!;
  for (const expected of [
    /Edge primary \(PS00007\).*5400 seconds is not a whole number of hours; rounded to 2 hour/,
    /restriction times with seconds are rounded to the minute/,
    /layer "Old" ended before the import/,
    /Edge escalation \(PE00007\).*repeats 12 times; Vigil repeats at most 9/,
    /Search escalation \(PE00012\) \| vigil_escalation_policies\.search_escalation_pe00012 \| named "Search escalation \(PE00012\)": another has its name/,
    /push_notification_contact_method: Vigil has no mobile app/,
    /generic_email_inbound_integration: Vigil takes no alerts this way/,
    /Database upgrade \(PW0001\).*at 2027-01-16T22:00:00Z mute warehouse, blobs/,
    /Past window \(PW0003\).*ended before the import/,
    /\| api: Datadog \(PI10\) \| Datadog \| `<vigil>\/webhooks\/monitoring-a\/<token>` \|/,
    /\| warehouse: Alertmanager \(PI40\) \| Prometheus \| `<vigil>\/v2\/enqueue` \|/,
  ]) t.match(report, expected);
  t.match(report, /\| schedule \| 12 \| 9 \| 3 \| 0 \|/, 'twelve schedules read, each accounted for');
});

t.test('people, then plan and apply: PagerDuty\'s on-call answer at 30 instants is Vigil\'s', async (t) => {
  pd.retryAfter = '0';
  pd.rearm();
  const run = await runCli(importArgs());
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /Wrote vigil\.tf, people\.json and REPORT\.md/);
  t.same(Object.keys(await files(out)), ['REPORT.md', 'people.json', 'vigil.tf']);
  t.same((await readdir(root)).sort(), ['pd'], 'no temporary folder is left beside it');

  const users = await vigilCli(['users', 'import', join(out, 'people.json'), '--org', org.id]);
  t.equal(users.code, 0, users.stderr);
  t.match(users.stdout, /40 people: 40 users created \(0 already there\), 40 memberships/);
  t.match(users.stdout, /74 contact methods \(unverified: each person confirms theirs\) and 84 notification rules created/);
  const methods = (await key.get(`${CONFIG}/contact_methods?limit=500`)).body.data;
  t.equal(methods.length, 74);
  t.ok(methods.every((m: { verified: boolean }) => m.verified === false), 'every method waits for its person to confirm it');
  const again = await vigilCli(['users', 'import', join(out, 'people.json'), '--org', org.id]);
  t.match(again.stdout, /0 users created \(40 already there\).*\n.*0 contact methods .* and 0 notification rules created/, 'a second run creates nothing twice');
  t.same((await vigil.operator.get(`/api/admin/v1/organizations/${org.id}/api_keys`)).body.data.filter((k: { name: string; revoked_at: string | null }) => k.name === 'vigil users import' && !k.revoked_at), [], 'the keys made for the runs are revoked');

  const tf = join(out, 'vigil.tf');
  const plan = await vigilCli(['plan', tf]);
  t.equal(plan.code, 0, plan.stderr);
  t.match(plan.stdout, /Plan: 63 to create, 0 to update, 0 to delete; 0 cannot be applied; 0 unchanged/);
  t.match(plan.stdout, /"schedule_id":"vigil_schedules.payments_primary.id"/, "a reference inside a value is shown by address");
  const apply = await vigilCli(['apply', tf]);
  t.equal(apply.code, 0, apply.stderr);
  t.match(apply.stdout, /Apply complete: 63 change\(s\)/);
  const replan = await vigilCli(['plan', tf]);
  t.match(replan.stdout, /No changes: the organization matches the file \(63 unchanged/, 'planning the same file again changes nothing');

  const exported = (await key.get(`${CONFIG}/export?format=hcl`)).body as string;
  t.match(exported, /schedule_id = vigil_schedules\.payments_primary\.id/, 'the export writes a policy step\'s schedule as a reference to its block too');
  const own = await vigilCli(['plan', await writeText(join(await mkdtemp(join(tmpdir(), 'vigil-export-')), 'export.hcl'), exported)]);
  t.match(own.stdout, /No changes: the organization matches the file/, 'and its own export plans no change');
  const schedules = (await key.get(`${CONFIG}/schedules`)).body.data as { id: string; name: string }[];
  const policy = (await key.get(`${CONFIG}/escalation_policies`)).body.data.find((p: { name: string }) => p.name === 'Payments escalation');
  t.same(policy.steps[0].targets, [{ schedule_id: schedules.find((s) => s.name === 'Payments primary')!.id }], 'a policy step names the schedule applied with it');
  const report = await readFile(join(out, 'REPORT.md'), 'utf8');
  const emailOf = new Map(pd.account.users.map((u) => [u.id, u.email]));
  const pdHeaders = { authorization: `Token token=${PD_TOKEN}`, accept: 'application/vnd.pagerduty+json;version=2' };
  let compared = 0;
  const differing: string[] = [];
  let someone = 0;
  // two months, across both daylight-saving changes of the fixtures' zones (America 2027-03-14, Europe 2027-03-28),
  // at hours that move through the day
  const instants = Array.from({ length: 30 }, (_, i) => new Date(Date.parse('2027-02-20T00:00:00Z') + i * (2 * 86_400 + 5 * 3600 + 7 * 60) * 1000).toISOString());
  for (const s of pd.account.schedules) {
    if (new RegExp(`${s.name} \\(${s.id}\\).*(rounded to \\d+ hour)`).test(report)) continue;
    const mine = schedules.find((x) => x.name === s.name)!;
    await Promise.all(instants.map(async (at) => {
      const answer = await fetch(`${pd.url}/oncalls?since=${at}&until=${at}&schedule_ids[]=${s.id}`, { headers: pdHeaders }).then((r) => r.json());
      const expected = answer.oncalls[0] ? emailOf.get(answer.oncalls[0].user.id) : null;
      const got = (await key.get(`${CONFIG}/schedules/${mine.id}/on_call?at=${at}`)).body.data.email;
      compared++;
      if (expected) someone++;
      if (got !== expected) differing.push(`${s.name} at ${at}: PagerDuty ${expected}, Vigil ${got}`);
    }));
  }
  t.ok(someone > 300, `someone is on call at most of them (${someone})`);
  t.equal(compared, 11 * 30, 'eleven schedules carried exactly, 30 instants each');
  t.same(differing, [], 'Vigil has the same person on call as PagerDuty at every instant');

  // a test alert to the imported organization pages the person PagerDuty has on call for the service's policy
  const pdPolicy = pd.account.policies.find((p) => p.name === 'Payments escalation')!;
  const pdService = pd.account.services.find((s) => s.escalation_policy.id === pdPolicy.id)!;
  const when = '2027-03-15T03:30:00Z';
  const onCall = await fetch(`${pd.url}/oncalls?since=${when}&until=${when}&schedule_ids[]=${pdPolicy.escalation_rules[0].targets[0].id}`, { headers: pdHeaders }).then((r) => r.json());
  const expectedPerson = emailOf.get(onCall.oncalls[0].user.id);
  vigil.clock.set(new Date(when));
  const fired = await fetch(`${vigil.url}/webhooks/metric-dashboard/${org.webhookToken}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(alertmanager([{ name: 'ImportedPage', service: String(pdService.name) }])),
  });
  t.equal(fired.status, 200, 'the test alert is accepted');
  await runEscalations(vigil.running.services);
  const alert = ((await key.get(`${CONFIG}/alerts?service=${encodeURIComponent(String(pdService.name))}`)).body.data as { id: string }[])[0]!;
  const escalation = (await key.get(`${CONFIG}/alerts/${alert.id}/escalation`)).body.data[0];
  t.ok(expectedPerson, 'PagerDuty has someone on call then');
  t.same([...new Set(escalation.notifications.map((n: { email: string }) => n.email))], [expectedPerson], `the first step pages ${expectedPerson}, PagerDuty's on-call person`);

  // the source changes: a new override, a longer delay; importing again and planning shows only that
  pd.account.overrides.get('PS00001')!.push({ id: 'PO0099', start: '2027-01-19T08:00:00Z', end: '2027-01-19T20:00:00Z', user: { id: 'PU00006', type: 'user_reference' } });
  pd.account.policies.find((p) => p.name === 'Search escalation')!.escalation_rules[0].escalation_delay_in_minutes = 25;
  pd.rearm();
  const rerun = await runCli(importArgs());
  t.equal(rerun.code, 0, rerun.stderr);
  const changed = await vigilCli(['plan', tf]);
  t.equal(changed.code, 0, changed.stderr);
  t.match(changed.stdout, /Plan: 1 to create, 1 to update, 0 to delete/);
  t.match(changed.stdout, /\+ create vigil_schedule_overrides\.gus_silva_example_com/);
  t.match(changed.stdout, /~ update vigil_escalation_policies\.search_escalation/);
});

t.test('a source that refuses, fails or answers something else stops the import with one sentence; the folder is as it was', async (t) => {
  const before = await files(out);
  const cases: [string, () => void, RegExp][] = [
    ['a refused token', () => (pd.fault = null), /^error: PagerDuty refused the token for GET \/users \(HTTP 401\): check --token and its permissions\.\n$/],
    ['a 500', () => (pd.fault = { path: '/schedules/PS00003', kind: '500' }), /^error: PagerDuty answered HTTP 500 to GET \/schedules\/PS00003\.\n$/],
    ['malformed JSON', () => (pd.fault = { path: '/users', kind: 'malformed' }), /^error: PagerDuty answered GET \/users with something that is not JSON; is --url the PagerDuty API\?\n$/],
    ['another format', () => (pd.fault = { path: '/services', kind: 'undocumented' }), /^error: PagerDuty answered GET \/services in a form that is not its documented one \(no "services" list\)\.\n$/],
  ];
  for (const [what, arrange, sentence] of cases) {
    arrange();
    pd.rearm();
    const run = await runCli(importArgs(out, what === 'a refused token' ? 'wrong-token' : PD_TOKEN));
    t.equal(run.code, 1, `${what}: exit code 1`);
    t.match(run.stderr, sentence, `${what}: one sentence naming the call`);
    t.same(await files(out), before, `${what}: the folder is as it was`);
    t.same((await readdir(root)).sort(), ['pd'], `${what}: nothing half-written beside it`);
  }
  pd.fault = null;
  const fresh = join(root, 'never');
  const refused = await runCli(importArgs(fresh, 'wrong-token'));
  t.equal(refused.code, 1);
  t.same((await readdir(root)).sort(), ['pd'], 'a folder that did not exist is not made');
  const notPeople = await vigilCli(['users', 'import', join(out, 'REPORT.md'), '--org', org.id]);
  t.equal(notPeople.code, 1);
  t.match(notPeople.stderr, /^error: .*REPORT\.md is not JSON: it should be the people\.json `vigil import` wrote\.\n$/, 'users import refuses a file that is not a people file, in one sentence');
  const noToken = await runCli(['import', 'pagerduty', '--url', pd.url, '--out', fresh], { VIGIL_ADMIN_TOKEN: OPERATOR_TOKEN });
  t.match(noToken.stderr, /--token <the source's API key> is required/, 'Vigil\'s operator token is never sent to the source');
});
