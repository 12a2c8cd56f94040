/**
 * `vigil import grafana-oncall` against a local Grafana OnCall (test/helpers/grafana-oncall-server.ts: its documented
 * public API, `next`-URL pages, one 429 with Retry-After), then `vigil users import`, `vigil plan` and `vigil apply`
 * into a started service; the proof that the schedules came across is OnCall's own final_shifts answer compared at
 * 30 instants per schedule with Vigil's who-is-on-call. Refusals stop the import with one sentence, the folder as it was.
 */
import t from 'tap';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importGrafanaOnCall, PRODUCT } from '../../importers/grafana-oncall.ts';
import { renderFiles } from '../../importers/core.ts';
import { folderFiles, runCli } from '../helpers/cli.ts';
import { CONFIG, OPERATOR_TOKEN, startVigil } from '../helpers/harness.ts';
import { ONCALL_TOKEN, startGrafanaOnCall } from '../helpers/grafana-oncall-server.ts';

const AS_OF = '2027-01-10T00:00:00Z';
const oc = await startGrafanaOnCall();
const vigil = await startVigil();
t.teardown(async () => {
  await vigil.close();
  await oc.close();
});
const org = await vigil.organization('business');
const key = await org.key();
const root = await mkdtemp(join(tmpdir(), 'vigil-import-'));
const out = join(root, 'oncall');
const importArgs = (dir = out, token = ONCALL_TOKEN) => ['import', 'grafana-oncall', '--url', oc.url, '--token', token, '--out', dir, '--as-of', AS_OF];
const vigilCli = (args: string[]) => runCli(args, { VIGIL_URL: vigil.url, VIGIL_ADMIN_TOKEN: OPERATOR_TOKEN, VIGIL_API_KEY: key.token });
const files = folderFiles;

t.test('the import follows every next page, waits out the 429 as asked, and gives the same files twice', async (t) => {
  const waits: number[] = [];
  const first = await importGrafanaOnCall({ url: oc.url, token: ONCALL_TOKEN, now: new Date(AS_OF), sleep: async (ms) => void waits.push(ms) });
  t.same(waits, [7000], 'the one 429 is waited out for its Retry-After (7 s), then the call is made again');
  t.same(oc.requests.filter((r) => r.startsWith('GET /api/v1/users/')), ['GET /api/v1/users/', 'GET /api/v1/users/?page=2'], 'the second page of users asked of --url, though next named OnCall\'s own host');
  t.same(oc.requests.filter((r) => r.startsWith('GET /api/v1/escalation_policies/')), ['GET /api/v1/escalation_policies/', 'GET /api/v1/escalation_policies/', 'GET /api/v1/escalation_policies/?page=2', 'GET /api/v1/escalation_policies/?page=3'], 'the 429, then the first page again, then the next pages');
  const people = first.people.people;
  t.equal(people.length, 40, 'forty people');
  t.match(people.find((p) => p.email === 'ana.silva@example.com'), { role: 'org_admin', contact_methods: [{ key: 'email-1', type: 'email' }], notification_rules: [{ delay_minutes: 0, urgency: 'high' }, { delay_minutes: 5, urgency: 'high' }, { delay_minutes: 0, urgency: 'low' }, { delay_minutes: 5, urgency: 'low' }] });
  t.match(people.find((p) => p.email === 'tia.berg@example.com'), { role: 'viewer' });
  const text = renderFiles(PRODUCT, oc.url, first);
  oc.rearm();
  const second = renderFiles(PRODUCT, oc.url, await importGrafanaOnCall({ url: oc.url, token: ONCALL_TOKEN, now: new Date(AS_OF), sleep: async () => {} }));
  t.same(second, text, 'a second run writes the same three files, byte for byte');
  const report = text['REPORT.md']!;
  for (const expected of [
    /Data primary \(S0004SCHD\): shift "Primary" \(O\d+SHFT\) \|.*\| a monthly rotation: .*every 4 weeks.*by_monthday \[1,15\]: Vigil restricts by weekday/,
    /Mobile primary \(S0003SCHD\): shift "Fortnight office".*every 2 weeks on some weekdays/,
    /Platform secondary \(S0011SCHD\).*several people on one turn/,
    /Edge primary \(S0007SCHD\) \| [^|]*schedule[^|]* \| an iCal schedule: carried as layers that follow its feeds/,
    /Mobile escalation \(F0003CHAN\).*a wait of 90 s is rounded to the minute/,
    /Identity escalation \(F0005CHAN\).*notify_if_time_from_to 09:00:00Z–18:00:00Z\) is not carried: the steps after it always run/,
    /Billing escalation \(F0006CHAN\).*OnCall notifies the next of these people each time; Vigil notifies all of them/,
    /Observability escalation \(F0009CHAN\).*Vigil does not resolve from a policy/,
    /Storage primary \(S0008SCHD\): single_event "Game day".*a single event sits at its level in OnCall/,
    /Payments primary \(S0000SCHD\): override .* \| — \| it ended before the import/,
    /notify_by_sms .*the OnCall API does not give the verified phone number/,
    /important #0 notify_by_phone_call .*Vigil has no separate chain for important notifications/,
    /\| ios \(C0003INTG\) \| webhook \| `<vigil>\/v2\/enqueue` \|/,
    /\| search \(C0002INTG\) \| datadog \| `<vigil>\/webhooks\/monitoring-a\/<token>` \|/,
    /\| login \(C0005INTG\) \| — \| inbound_email: Vigil takes no alerts this way/,
    /checkout: route #1 \(R0A\) \|.*Vigil against the title/,
  ]) t.match(report, expected);
  t.match(report, /\| schedule \| 12 \| 8 \| 4 \| 0 \|/, 'twelve schedules read, each accounted for (the iCal one approximately, as layers following its feed)');
  t.notMatch(report, /Edge escalation \(F0007CHAN\).*schedule S0007SCHD is not carried/, 'the chain paging the iCal schedule keeps that step');
  t.match(report, /\| heartbeat \| 3 \| 0 \| 0 \| 3 \|/, 'three integration heartbeats read, each accounted for');
  t.match(report, /search \(C0002INTG\) heartbeat.*gives the heartbeat's link, not its timeout: create heartbeats "search"/, 'what to make instead is said');
  t.match(report, /`<vigil>\/webhooks\/heartbeat\/<token>\/search`/, 'with the URL to ping');
});

t.test('people, then plan and apply: OnCall\'s final shifts at 30 instants per schedule are Vigil\'s on-call', async (t) => {
  oc.retryAfter = '0';
  oc.rearm();
  const run = await runCli(importArgs());
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /Read \d+ objects from Grafana OnCall: .*\nWrote vigil\.tf, people\.json and REPORT\.md/);
  t.same((await readdir(root)).sort(), ['oncall'], 'no temporary folder is left beside it');
  const users = await vigilCli(['users', 'import', join(out, 'people.json'), '--org', org.id]);
  t.equal(users.code, 0, users.stderr);
  t.match(users.stdout, /40 people: 40 users created \(0 already there\), 40 memberships/);
  const tf = join(out, 'vigil.tf');
  const plan = await vigilCli(['plan', tf]);
  t.equal(plan.code, 0, plan.stderr);
  t.match(plan.stdout, /Plan: \d+ to create, 0 to update, 0 to delete; 0 cannot be applied; 0 unchanged/);
  const apply = await vigilCli(['apply', tf]);
  t.equal(apply.code, 0, apply.stderr);
  t.match((await vigilCli(['plan', tf])).stdout, /No changes: the organization matches the file/, 'planning the same file again changes nothing');

  const report = await readFile(join(out, 'REPORT.md'), 'utf8');
  t.equal(oc.org.schedules.length, 12);
  const schedules = (await key.get(`${CONFIG}/schedules`)).body.data as { id: string; name: string }[];
  // two months, across both daylight-saving changes of the fixtures' zones (America 2027-03-14, Europe 2027-03-28)
  const instants = Array.from({ length: 30 }, (_, i) => Date.parse('2027-02-20T00:00:00Z') + i * (2 * 86_400 + 5 * 3600 + 7 * 60) * 1000);
  const exact: string[] = [];
  const differing: string[] = [];
  const approximateDiffer: string[] = [];
  let compared = 0;
  for (const s of oc.org.schedules) {
    const line = report.split('\n').find((l) => l.startsWith(`| schedule | ${s.name} (${s.id})`));
    if (!line || !/vigil_schedules\./.test(line)) continue;
    const approximate = report.split('## Carried approximately')[1]!.split('## Where')[0]!.includes(`| schedule | ${s.name} (${s.id}) |`);
    const final: { user_email: string; shift_start: string; shift_end: string }[] = [];
    for (let url: string | null = `${oc.url}/schedules/${s.id}/final_shifts/?start_date=2027-02-19&end_date=2027-04-30`; url; ) {
      const body: { results: typeof final; next: string | null } = await fetch(url.replace(/^https:\/\/oncall-internal\.example\.com\/api\/v1/, oc.url), { headers: { authorization: ONCALL_TOKEN } }).then((r) => r.json());
      final.push(...body.results);
      url = body.next;
    }
    const mine = schedules.find((x) => x.name === s.name)!;
    if (!approximate) exact.push(s.name);
    await Promise.all(instants.map(async (at) => {
      const expected = final.filter((f) => Date.parse(f.shift_start) <= at && at < Date.parse(f.shift_end)).map((f) => f.user_email);
      const got = (await key.get(`${CONFIG}/schedules/${mine.id}/on_call?at=${new Date(at).toISOString()}`)).body.data.email ?? null;
      const same = expected.length ? expected.includes(got) : got === null;
      if (!approximate) compared++;
      if (!same) (approximate ? approximateDiffer : differing).push(`${s.name} at ${new Date(at).toISOString()}: OnCall ${expected.join('+') || 'nobody'}, Vigil ${got}`);
    }));
  }
  t.equal(exact.length, 8, `eight schedules carried exactly (${exact.join(', ')})`);
  t.equal(compared, 8 * 30, '30 instants each');
  t.same(differing, [], 'Vigil has the person OnCall has on call at every instant');
  t.comment(`approximate schedules: ${approximateDiffer.length} of ${3 * 30} instants differ`);

  // the source changes: a new override, a longer wait; importing again and planning shows only that
  oc.org.shifts.push({ id: 'O9999OVRD', name: 'swap', type: 'override', schedule: 'S0001SCHD', time_zone: 'UTC', level: 99, start: '2027-01-19T08:00:00', duration: 12 * 3600, users: [oc.org.users[6]!.id], rotation_start: '2027-01-19T08:00:00' });
  oc.org.steps.find((p) => p.id === 'E2P1')!.duration = 1500;
  oc.rearm();
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
    ['a refused token', () => (oc.fault = null), /^error: Grafana OnCall refused the token for GET \/users\/ \(HTTP 403\): check --token and its permissions\.\n$/],
    ['a 500', () => (oc.fault = { path: '/on_call_shifts/', kind: '500' }), /^error: Grafana OnCall answered HTTP 500 to GET \/on_call_shifts\/\.\n$/],
    ['malformed JSON', () => (oc.fault = { path: '/teams/', kind: 'malformed' }), /^error: Grafana OnCall answered GET \/teams\/ with something that is not JSON; is --url the Grafana OnCall API\?\n$/],
    ['another format', () => (oc.fault = { path: '/routes/', kind: 'undocumented' }), /^error: Grafana OnCall answered GET \/routes\/ in a form that is not its documented one \(no "results" list\)\.\n$/],
  ];
  for (const [what, arrange, sentence] of cases) {
    arrange();
    oc.rearm();
    const run = await runCli(importArgs(out, what === 'a refused token' ? 'wrong-token' : ONCALL_TOKEN));
    t.equal(run.code, 1, `${what}: exit code 1`);
    t.match(run.stderr, sentence, `${what}: one sentence naming the call`);
    t.same(await files(out), before, `${what}: the folder is as it was`);
    t.same((await readdir(root)).sort(), ['oncall'], `${what}: nothing half-written beside it`);
  }
  oc.fault = null;
  const fresh = join(root, 'never');
  const refused = await runCli(importArgs(fresh, 'wrong-token'));
  t.equal(refused.code, 1);
  t.same((await readdir(root)).sort(), ['oncall'], 'a folder that did not exist is not made');
  const noToken = await runCli(['import', 'grafana-oncall', '--url', oc.url, '--out', fresh], { VIGIL_ADMIN_TOKEN: OPERATOR_TOKEN });
  t.match(noToken.stderr, /--token <the source's API key> is required/, 'Vigil\'s operator token is never sent to the source');
});
