/**
 * `vigil import opsgenie` against a local Opsgenie (test/helpers/opsgenie-server.ts: its documented REST API, users
 * paged, one 429 with X-RateLimit-Period-In-Sec), then `vigil users import`, `vigil plan` and `vigil apply` into a
 * started service; the proof that the schedules came across is Opsgenie's own on-calls answer at 30 instants
 * compared with Vigil's who-is-on-call. Refusals of the source stop the import with one sentence and leave the folder
 * as it was.
 */
import t from 'tap';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importOpsgenie, PRODUCT } from '../../importers/opsgenie.ts';
import { renderFiles } from '../../importers/core.ts';
import { folderFiles, runCli } from '../helpers/cli.ts';
import { CONFIG, OPERATOR_TOKEN, startVigil } from '../helpers/harness.ts';
import { OG_KEY, startOpsgenie } from '../helpers/opsgenie-server.ts';

const AS_OF = '2027-01-10T00:00:00Z';
const og = await startOpsgenie();
const vigil = await startVigil();
t.teardown(async () => {
  await vigil.close();
  await og.close();
});
const org = await vigil.organization('business');
const key = await org.key();
const root = await mkdtemp(join(tmpdir(), 'vigil-import-og-'));
const out = join(root, 'og');
const importArgs = (dir = out, token = OG_KEY) => ['import', 'opsgenie', '--url', og.url, '--token', token, '--out', dir, '--as-of', AS_OF];
const vigilCli = (args: string[]) => runCli(args, { VIGIL_URL: vigil.url, VIGIL_ADMIN_TOKEN: OPERATOR_TOKEN, VIGIL_API_KEY: key.token });
const files = folderFiles;

t.test('the import reads every page, waits out the 429 as Opsgenie asks, and gives the same files twice', async (t) => {
  const waits: number[] = [];
  const first = await importOpsgenie({ url: og.url, token: OG_KEY, now: new Date(AS_OF), pageSize: 15, sleep: async (ms) => void waits.push(ms) });
  t.same(waits, [7000], 'the one 429 is waited out for its X-RateLimit-Period-In-Sec (7 s), then the call is made again');
  t.same(og.requests.filter((r) => r.startsWith('GET /v2/users?')), ['GET /v2/users?offset=0&limit=15', 'GET /v2/users?offset=15&limit=15', 'GET /v2/users?offset=30&limit=15'], 'three pages, following paging.next');
  t.equal(og.requests.filter((r) => r.startsWith('GET /v2/escalations')).length, 2, 'escalations asked twice: the 429, then the answer');
  const people = first.people.people;
  t.equal(people.length, 40, 'forty people');
  t.match(people.find((p) => p.email === 'ana.silva@example.com'), { role: 'org_admin', contact_methods: [{ type: 'email' }, { type: 'sms', address: '+14155552600' }, { type: 'voice', address: '+14155552600' }] });
  t.equal(people.find((p) => p.email === 'rae.berg@example.com')!.role, 'viewer', 'a stakeholder is a viewer');
  const text = renderFiles(PRODUCT, og.url, first);
  og.rearm();
  const second = renderFiles(PRODUCT, og.url, await importOpsgenie({ url: og.url, token: OG_KEY, now: new Date(AS_OF), sleep: async () => {} }));
  t.same(second, text, 'a second run (other page size) writes the same three files, byte for byte');
  const report = text['REPORT.md']!;
  for (const expected of [
    /Data primary .*rotation "With a gap" has a turn with no one \(participant none\)/,
    /Billing primary .*a participant of type team \(Search\) is left out.*a participant of type escalation \(Search_escalation\) is left out/,
    /Storage primary .*rotations "Primary" and "Shadow" can both have someone on call at once/,
    /Observability primary .*rotation "Old" ended before the import/,
    /Mobile_escalation .*notifies the next on-call of schedule Mobile primary/,
    /Edge_escalation .*notifies the previous on-call of schedule Edge primary.*repeats 12 times; Vigil repeats at most 9/,
    /Platform after hours .*notifies the admins of team Platform: the 1 admin\(s\) of today are named/,
    /Mobile after hours .*notifies everyone in schedule Platform primary: its 4 participants of today are named/,
    /Search after hours .*escalates if the alert is not closed/,
    /Observability_escalation .*the first rule waits 5 min after the alert/,
    /Data_escalation .*Opsgenie waits 30 min before repeating.*closes the alert after the last repeat/,
    /mobile: Vigil has no mobile app/,
    /Acknowledged .*acknowledged-alert: Vigil's notification rules say how a page reaches someone/,
    /Opsgenie role Responder has no Vigil equivalent: member/,
    /\(o1\) \| — \| it ended before the import/,
    /\(o8\) .* it overrides some of the schedule's rotations/,
    /\(o9\) \| — \| it puts a team on call/,
    /invoices-email \(Email, .*type Email: Vigil takes no alerts this way/,
    /Database upgrade .*at 2027-01-16T22:00:00Z mute the alerts it covers/,
    /\| api-datadog \(Datadog, [^|]*\) \| Datadog \| `<vigil>\/webhooks\/monitoring-a\/<token>` \|/,
    /\| search-grafana \(Grafana, [^|]*\) \| Grafana \| `<vigil>\/webhooks\/metric-dashboard\/<token>` \|/,
    /ios-amazoncloudwatch .*it belongs to no team: no route is made/,
  ]) t.match(report, expected);
  t.match(report, /\| schedule \| 12 \| 8 \| 4 \| 0 \|/, 'twelve schedules read, each accounted for');
  t.match(report, /\| escalation policy \| 15 \| 7 \| 8 \| 0 \|/, 'fifteen escalations read, each accounted for');
  t.match(report, /\| heartbeat \| 3 \| 1 \| 1 \| 1 \|/, 'three heartbeats read, each accounted for');
  t.match(report, /Watchdog prometheus \(heartbeat\).*named "Watchdog-prometheus"/, 'a name no ping URL segment holds is renamed, and said');
  t.match(report, /old-cron \(heartbeat\).*it is disabled in Opsgenie/);
  t.match(report, /`<vigil>\/webhooks\/heartbeat\/<token>\/nightly-backup`/, 'the ping URL each job calls instead');
  const backup = /resource "vigil_heartbeats" "nightly_backup" \{[^}]*\}/.exec(text['vigil.tf']!)?.[0] ?? '';
  for (const line of [/grace_seconds += 0/, /interval_seconds += 86400/, /severity += "high"/]) t.match(backup, line, 'a day, no grace, P2 as high');
  const tf = text['vigil.tf']!;
  t.match(tf, /name {9}= "Nights"\s*participants = \[[^\]]*\]\s*restrictions = \[\s*\{\s*days = \["mon", "tue", "wed", "thu", "fri", "sat", "sun"\]\s*from = "00:00"\s*to {3}= "08:00"\s*\},\s*\{\s*days = \["mon", "tue", "wed", "thu", "fri", "sat", "sun"\]\s*from = "20:00"\s*to {3}= "00:00"/, 'a time of day past midnight (20:00 to 08:00) is cut at midnight');
});

t.test('people, then plan and apply: Opsgenie\'s on-call answer at 30 instants is Vigil\'s', async (t) => {
  og.period = '0';
  og.rearm();
  const run = await runCli(importArgs());
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /Read \d+ objects from Opsgenie: .*\nWrote vigil\.tf, people\.json and REPORT\.md/);
  t.same((await readdir(root)).sort(), ['og'], 'no temporary folder is left beside it');
  const users = await vigilCli(['users', 'import', join(out, 'people.json'), '--org', org.id]);
  t.equal(users.code, 0, users.stderr);
  t.match(users.stdout, /40 people: 40 users created \(0 already there\), 40 memberships/);
  const methods = (await key.get(`${CONFIG}/contact_methods?limit=500`)).body.data;
  t.equal(methods.length, 74, 'email, sms and voice methods: 40 + 14 + 20');
  t.ok(methods.every((m: { verified: boolean }) => m.verified === false), 'every method waits for its person to confirm it');

  const tf = join(out, 'vigil.tf');
  const plan = await vigilCli(['plan', tf]);
  t.equal(plan.code, 0, plan.stderr);
  t.match(plan.stdout, /Plan: (\d+) to create, 0 to update, 0 to delete; 0 cannot be applied; 0 unchanged/);
  const apply = await vigilCli(['apply', tf]);
  t.equal(apply.code, 0, apply.stderr);
  const replan = await vigilCli(['plan', tf]);
  t.match(replan.stdout, /No changes: the organization matches the file/, 'planning the same file again changes nothing');

  const report = await readFile(join(out, 'REPORT.md'), 'utf8');
  const schedules = (await key.get(`${CONFIG}/schedules`)).body.data as { id: string; name: string }[];
  let compared = 0;
  let someone = 0;
  const differing: string[] = [];
  // two months, across both daylight-saving changes of the fixtures' zones (America 2027-03-14, Europe 2027-03-28)
  const instants = Array.from({ length: 30 }, (_, i) => new Date(Date.parse('2027-02-20T00:00:00Z') + i * (2 * 86_400 + 5 * 3600 + 7 * 60) * 1000).toISOString());
  for (const s of og.account.schedules) {
    if (new RegExp(`\\| schedule \\| ${s.name} \\(${s.id}\\) \\| [^|\\n]+ \\| [^|\\n]+ \\|`).test(report)) continue; // carried approximately
    const mine = schedules.find((x) => x.name === s.name)!;
    await Promise.all(instants.map(async (at) => {
      const answer = await fetch(`${og.url}/v2/schedules/${s.id}/on-calls?date=${encodeURIComponent(at)}&flat=true`, { headers: { authorization: `GenieKey ${OG_KEY}` } }).then((r) => r.json());
      const recipients = answer.data.onCallRecipients as string[];
      const got = (await key.get(`${CONFIG}/schedules/${mine.id}/on_call?at=${at}`)).body.data.email;
      compared++;
      if (recipients.length) someone++;
      if (recipients.length > 1 || (got ?? null) !== (recipients[0] ?? null)) differing.push(`${s.name} at ${at}: Opsgenie ${recipients.join(', ') || 'no one'}, Vigil ${got}`);
    }));
  }
  t.equal(compared, 8 * 30, 'the eight schedules carried exactly, 30 instants each');
  t.ok(someone > 200, `someone is on call at most of them (${someone})`);
  t.same(differing, [], 'Vigil has the same person on call as Opsgenie at every instant');

  // the source changes: a new override, a longer delay; importing again and planning shows only that
  og.account.overrides.get(og.account.schedules[1]!.id)!.push({ alias: 'o99', startDate: '2027-01-19T08:00:00Z', endDate: '2027-01-19T20:00:00Z', user: { type: 'user', id: og.account.users[6]!.id, username: og.account.users[6]!.username }, rotations: [] });
  og.account.policies.find((p) => p.name === 'Search_escalation')!.rules[1].delay.timeAmount = 25;
  og.rearm();
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
  const schedule = og.account.schedules[3]!.id;
  const cases: [string, () => void, RegExp][] = [
    ['a refused token', () => (og.fault = null), /^error: Opsgenie refused the token for GET \/v2\/users \(HTTP 401\): check --token and its permissions\.\n$/],
    ['a 500', () => (og.fault = { path: `/v2/schedules/${schedule}/overrides`, kind: '500' }), new RegExp(`^error: Opsgenie answered HTTP 500 to GET /v2/schedules/${schedule}/overrides\\.\\n$`)],
    ['malformed JSON', () => (og.fault = { path: '/v2/users', kind: 'malformed' }), /^error: Opsgenie answered GET \/v2\/users with something that is not JSON; is --url the Opsgenie API\?\n$/],
    ['another format', () => (og.fault = { path: '/v2/escalations', kind: 'undocumented' }), /^error: Opsgenie answered GET \/v2\/escalations in a form that is not its documented one \(no "data" list\)\.\n$/],
    ['a heartbeat interval in another unit', () => { og.fault = null; og.account.heartbeats[0]!.intervalUnit = 'weeks'; }, /^error: Opsgenie answered GET \/v2\/heartbeats in a form that is not its documented one \(heartbeat "nightly-backup" has no interval in minutes, hours or days\)\.\n$/],
  ];
  for (const [what, arrange, sentence] of cases) {
    arrange();
    og.rearm();
    const run = await runCli(importArgs(out, what === 'a refused token' ? 'wrong-key' : OG_KEY));
    t.equal(run.code, 1, `${what}: exit code 1`);
    t.match(run.stderr, sentence, `${what}: one sentence naming the call`);
    t.same(await files(out), before, `${what}: the folder is as it was`);
    t.same((await readdir(root)).sort(), ['og'], `${what}: nothing half-written beside it`);
  }
  og.fault = null;
  og.account.heartbeats[0]!.intervalUnit = 'days';
  const fresh = join(root, 'never');
  const refused = await runCli(importArgs(fresh, 'wrong-key'));
  t.equal(refused.code, 1);
  t.same((await readdir(root)).sort(), ['og'], 'a folder that did not exist is not made');
  const noToken = await runCli(['import', 'opsgenie', '--url', og.url, '--out', fresh], { VIGIL_ADMIN_TOKEN: OPERATOR_TOKEN });
  t.match(noToken.stderr, /--token <the source's API key> is required/, 'Vigil\'s operator token is never sent to the source');
});
