/**
 * The escalation engine through the surfaces: escalation policies over REST (refusals named), an alert route paging a
 * team through its policy, steps run with the injected clock (runEscalations is the periodic pass's body), people
 * reached by email through a real SMTP server (test/helpers/smtp.ts), the state read over REST and MCP, and the steps
 * on the alert's effects. A three-step policy with a schedule target and a repeat; acknowledging stops it; an empty
 * step falls through at once; the first page goes out at once and those within its bundle window make one more message; a team's old escalation
 * list keeps paging.
 */
import t, { type Test } from 'tap';
import { runEscalations } from '../../../domain/paging/escalations.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';
import { drainJobs, waitFor } from '../../helpers/jobs.ts';
import { alertOrg, effects, type AlertOrg } from '../../helpers/outbound.ts';
import { startSmtp, type Mail } from '../../helpers/smtp.ts';

const ADMIN = '/api/admin/v1';
const MINUTE = 60_000;

const smtp = await startSmtp();
t.teardown(() => smtp.close());
const vigil = await startVigil({ email: { smtpUrl: smtp.url, from: 'Vigil <paging@acme.example>' } });
t.teardown(() => vigil.close());
const services = vigil.running.services;

const mailTo = (to: string): Mail[] => smtp.messages.filter((m) => m.to.includes(to));
/** One pass at the clock's now, then the bundles' wait, then the pass that sends them. */
async function pass(): Promise<void> {
  await runEscalations(services);
}
async function passAndSend(): Promise<void> {
  await runEscalations(services);
  vigil.clock.advance(6_000);
  await runEscalations(services);
}

async function people(t: Test, org: AlertOrg, names: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const email = `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const user = await vigil.operator.post(`${ADMIN}/users`, { email });
    t.equal(user.status, 201);
    await org.create('team_members', { email, role: 'member' });
    out[name] = email;
  }
  return out;
}

async function pagingOrg(t: Test) {
  const org = await alertOrg(vigil);
  t.teardown(() => org.agent.close());
  const p = await people(t, org, ['ann', 'bob', 'cat']);
  // bob is on call all day, every day
  const schedule = await org.create('schedules', {
    name: 'Primary', time_zone: 'UTC', layers: [{ name: 'Daily', participants: [p.bob], rotation: { unit: 'daily', length: 1 }, handoff: '2026-01-01T00:00' }],
  });
  const empty = await org.create('schedules', {
    name: 'Later', time_zone: 'UTC', layers: [{ name: 'Next year', participants: [p.cat], rotation: { unit: 'daily', length: 1 }, handoff: '2030-01-01T00:00' }],
  });
  return { org, p, schedule: schedule.id as string, empty: empty.id as string };
}

async function pageThrough(org: AlertOrg, policyId: string | null, extra: Record<string, unknown> = {}) {
  const team = await org.create('teams', { name: `Team ${Math.random().toString(36).slice(2, 6)}`, escalation_policy_id: policyId, ...extra });
  await org.create('alert_routes', { name: 'payments', team_id: team.id, matchers: [{ field: 'service', operator: 'equals', value: 'payments' }] });
  return team;
}

t.test('policies refuse unknown schedules, teams and emails by field; teams refuse an unknown policy', async (t) => {
  const { org, p } = await pagingOrg(t);
  const refused = async (body: Record<string, unknown>, field: string) => {
    const res = await org.api.post(`${CONFIG}/escalation_policies`, { name: 'x', ...body });
    t.equal(res.status, 422, field);
    t.ok(res.body.errors.some((e: { field: string }) => e.field === field), `${field} named: ${JSON.stringify(res.body.errors)}`);
  };
  await refused({ steps: [{ delay_minutes: 0, targets: [{ schedule_id: 'nope' }] }] }, 'steps[0].targets[0].schedule_id');
  await refused({ steps: [{ delay_minutes: 0, targets: [{ email: p.ann }] }, { delay_minutes: 5, targets: [{ team_id: 'nope' }] }] }, 'steps[1].targets[0].team_id');
  await refused({ steps: [{ delay_minutes: 0, targets: [{ email: 'stranger@example.com' }] }] }, 'steps[0].targets[0].email');
  await refused({ steps: [{ delay_minutes: 3, targets: [{ email: p.ann }] }] }, 'steps[0].delay_minutes');
  await refused({ steps: [{ delay_minutes: 0, targets: [] }], repeat: 10 }, 'repeat');
  await refused({ steps: [] }, 'steps');
  const team = await org.api.post(`${CONFIG}/teams`, { name: 'T', escalation_policy_id: 'no-such-policy' });
  t.equal(team.status, 422);
  t.equal(team.body.errors[0].field, 'escalation_policy_id');
  const listed = await org.api.get(`${CONFIG}/escalation_policies`);
  t.same(listed.body.data, [], 'nothing was written');
});

t.test('a three-step policy with a schedule target runs each step after its delay, then repeats, then stops', async (t) => {
  const { org, p, schedule } = await pagingOrg(t);
  const policy = await org.create('escalation_policies', {
    name: 'Payments', repeat: 1,
    steps: [{ delay_minutes: 0, targets: [{ email: p.ann }] }, { delay_minutes: 5, targets: [{ schedule_id: schedule }] }, { delay_minutes: 10, targets: [{ email: p.cat }] }],
  });
  await pageThrough(org, policy.id);
  await org.fire({ name: 'CardDeclines', service: 'payments' });
  let alert = await org.alert('CardDeclines');
  t.match(effects(alert, 'escalation_started'), [{ policy_id: policy.id, policy: 'Payments', subject: 'alert', steps: 3, repeat: 1 }]);

  await passAndSend();
  await waitFor(() => mailTo(p.ann).length === 1, 'ann paged');
  t.match(mailTo(p.ann)[0]!.subject, /CardDeclines/);
  t.equal(mailTo(p.bob).length + mailTo(p.cat).length, 0, 'only the first step so far');

  vigil.clock.advance(4 * MINUTE);
  await passAndSend();
  t.equal(mailTo(p.bob).length, 0, 'step 2 waits its 5 minutes');
  vigil.clock.advance(1 * MINUTE);
  await passAndSend();
  await waitFor(() => mailTo(p.bob).length === 1, 'bob, on call in the schedule, paged at step 2');
  vigil.clock.advance(10 * MINUTE);
  await passAndSend();
  await waitFor(() => mailTo(p.cat).length === 1, 'cat paged at step 3');
  // the repeat: the last step's delay after it, the policy again from the top
  vigil.clock.advance(10 * MINUTE);
  await passAndSend();
  await waitFor(() => mailTo(p.ann).length === 2, 'ann paged again by the repeat');
  vigil.clock.advance(5 * MINUTE);
  await passAndSend();
  vigil.clock.advance(10 * MINUTE);
  await passAndSend();
  await waitFor(() => mailTo(p.cat).length === 2, 'the repeat ran to its end');
  vigil.clock.advance(60 * MINUTE);
  await passAndSend();
  await drainJobs(services);
  t.same([mailTo(p.ann).length, mailTo(p.bob).length, mailTo(p.cat).length], [2, 2, 2], 'each step once per run, two runs, then nothing');

  alert = await org.alert('CardDeclines');
  t.same(effects(alert, 'escalation_step').map((s) => [s.loop, s.step, s.people]), [
    [0, 0, [p.ann]], [0, 1, [p.bob]], [0, 2, [p.cat]], [1, 0, [p.ann]], [1, 1, [p.bob]], [1, 2, [p.cat]],
  ], 'every step on the alert\'s timeline with the people it resolved to');
  t.equal(effects(alert, 'notified').length, 6, 'every notification attempt recorded');
  t.match(effects(alert, 'notified')[0], { email: p.ann, channel: 'email', queued: true });
  t.match(effects(alert, 'escalation_stopped'), [{ reason: 'exhausted' }]);

  // the state, over REST and MCP alike
  const rest = await org.api.get(`${CONFIG}/alerts/${alert.id}/escalation`);
  t.equal(rest.status, 200);
  t.match(rest.body.data, [{ subject: 'alert', policy_id: policy.id, state: 'done', reason: 'exhausted', next_at: null }]);
  t.same(rest.body.data[0].notifications.map((n: any) => [n.loop, n.step, n.email, n.status]), [
    [0, 0, p.ann, 'queued'], [0, 1, p.bob, 'queued'], [0, 2, p.cat, 'queued'], [1, 0, p.ann, 'queued'], [1, 1, p.bob, 'queued'], [1, 2, p.cat, 'queued'],
  ]);
  const mcp = await org.agent.call('get_alert_escalation', { id: alert.id });
  t.notOk(mcp.isError);
  t.same(mcp.body.data, rest.body.data, 'MCP answers what REST does');
  const unknown = await org.api.get(`${CONFIG}/alerts/00000000-0000-4000-8000-000000000000/escalation`);
  t.equal(unknown.status, 404);
});

t.test('acknowledging the alert stops the escalation before its next step', async (t) => {
  const { org, p } = await pagingOrg(t);
  const policy = await org.create('escalation_policies', { name: 'Two steps', steps: [{ delay_minutes: 0, targets: [{ email: p.ann }] }, { delay_minutes: 5, targets: [{ email: p.bob }] }] });
  await pageThrough(org, policy.id);
  await org.fire({ name: 'Latency', service: 'payments' });
  await passAndSend();
  await waitFor(() => mailTo(p.ann).length === 1, 'ann paged');
  const alert = await org.alert('Latency');
  const ack = await org.agent.call('acknowledge_alert', { id: alert.id });
  t.notOk(ack.isError, JSON.stringify(ack.body));
  vigil.clock.advance(5 * MINUTE);
  await passAndSend();
  await drainJobs(services);
  t.equal(mailTo(p.bob).length, 0, 'bob is never paged');
  const after = await org.alert('Latency');
  t.match(effects(after, 'escalation_stopped'), [{ reason: 'acknowledged', step: 1 }]);
  const state = await org.api.get(`${CONFIG}/alerts/${alert.id}/escalation`);
  t.match(state.body.data, [{ state: 'stopped', reason: 'acknowledged' }]);
});

t.test('a step that resolves to nobody is recorded and the next starts at once', async (t) => {
  const { org, p, empty } = await pagingOrg(t);
  const policy = await org.create('escalation_policies', { name: 'Empty first', steps: [{ delay_minutes: 0, targets: [{ schedule_id: empty }] }, { delay_minutes: 30, targets: [{ email: p.cat }] }] });
  await pageThrough(org, policy.id);
  await org.fire({ name: 'Night', service: 'payments' });
  await passAndSend();
  await waitFor(() => mailTo(p.cat).length === 1, 'cat paged without waiting 30 minutes');
  const alert = await org.alert('Night');
  t.same(effects(alert, 'escalation_step').map((s) => [s.step, s.people, s.empty ?? false]), [[0, [], true], [1, [p.cat], false]]);
});

t.test('the first page goes out at once; alerts paged within the bundle window after it reach a person as one message', async (t) => {
  const { org, p } = await pagingOrg(t);
  const policy = await org.create('escalation_policies', { name: 'Ann', steps: [{ delay_minutes: 0, targets: [{ email: p.ann }] }] });
  await pageThrough(org, policy.id);
  await org.fire({ name: 'One', service: 'payments' });
  await pass();
  await waitFor(() => mailTo(p.ann).length === 1, 'the first page at once, without a bundling wait');
  vigil.clock.advance(1_000);
  await org.fire({ name: 'Two', service: 'payments' });
  await pass();
  vigil.clock.advance(2_000);
  await org.fire({ name: 'Three', service: 'payments' }, { name: 'Four', service: 'payments' });
  await pass();
  await drainJobs(services);
  t.equal(mailTo(p.ann).length, 1, 'held while the window of the first is open');
  vigil.clock.advance(2_000);
  await pass();
  await waitFor(() => mailTo(p.ann).length === 2, 'one more message when the window ends');
  await drainJobs(services);
  t.equal(mailTo(p.ann).length, 2, 'only one more');
  const mail = mailTo(p.ann)[1]!;
  t.match(mail.subject, /3 alerts/);
  for (const name of ['Two', 'Three', 'Four']) t.match(mail.text, name);
  t.match(effects(await org.alert('Two'), 'notified'), [{ email: p.ann, bundled: 3, status: 'queued', method: 'account email', channel: 'email' }]);
  t.match(effects(await org.alert('One'), 'notified'), [{ email: p.ann, bundled: 1 }]);
});

t.test('a team without a policy pages through its old escalation list', async (t) => {
  const { org, p } = await pagingOrg(t);
  await pageThrough(org, null, { member_emails: [p.ann, p.bob], escalation: [p.bob, p.ann] });
  await org.fire({ name: 'Legacy', service: 'payments' });
  await passAndSend();
  await waitFor(() => mailTo(p.bob).length === 1, 'bob first');
  t.equal(mailTo(p.ann).length, 0);
  vigil.clock.advance(15 * MINUTE);
  await passAndSend();
  await waitFor(() => mailTo(p.ann).length === 1, 'ann 15 minutes later');
  const alert = await org.alert('Legacy');
  t.match(effects(alert, 'escalation_started'), [{ policy_id: null, steps: 2 }]);
});
