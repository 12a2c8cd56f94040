/**
 * Alert routing through the pipeline: enabled routes in order, the first match wins (more only while a matched
 * route says continue), the team recorded on the alert's effects, paging shaped by the routes, the severity
 * override kept through repeats; an organization without routes pages as before.
 */
import t, { type Test } from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { alertOrg, effects, kinds, type AlertOrg } from '../helpers/outbound.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());

async function routed(t: Test) {
  const org = await alertOrg(vigil);
  t.teardown(() => org.agent.close());
  const payments = (await org.create('teams', { name: 'Payments' })).id;
  const platform = (await org.create('teams', { name: 'Platform' })).id;
  const route = (name: string, body: Record<string, unknown>) => org.create('alert_routes', { name, ...body });
  const routes = {
    paymentsCritical: await route('payments critical', { team_id: payments, matchers: [{ field: 'service', operator: 'equals', value: 'PAYMENTS' }, { field: 'severity', operator: 'equals', value: 'critical' }] }),
    paymentsAny: await route('payments any', { team_id: platform, matchers: [{ field: 'service', operator: 'equals', value: 'payments' }] }),
    staging: await route('staging noise', { pages: false, matchers: [{ field: 'label', label_key: 'env', operator: 'regex', value: '^staging-\\d+$' }] }),
    disk: await route('disk is info', { team_id: platform, severity_override: 'info', continue: true, matchers: [{ field: 'title', operator: 'contains', value: 'disk' }] }),
    db: await route('db to payments', { team_id: payments, matchers: [{ field: 'service', operator: 'equals', value: 'db' }] }),
    off: await route('disabled catch-all', { team_id: platform, enabled: false, matchers: [{ field: 'source', operator: 'contains', value: 'metric' }] }),
  };
  return { org, teams: { payments, platform }, routes };
}

const routeIds = (a: any) => effects(a, 'routed').map((d) => d.route_id);

t.test('the first matching route wins; its team is recorded and paged', async (t) => {
  const { org, teams, routes } = await routed(t);
  await org.fire({ name: 'CardDeclines', service: 'payments', severity: 'critical' });
  const a = await org.alert('CardDeclines');
  t.same(routeIds(a), [routes.paymentsCritical.id], 'the first route matched; the second, which also matches, was not tried');
  t.same(effects(a, 'routed')[0], { route_id: routes.paymentsCritical.id, route: 'payments critical', team_id: teams.payments, team: 'Payments', pages: true, severity_override: null });
  t.same(effects(a, 'page').map((d) => d.team_ids), [[teams.payments]]);
  // the page says who it reached and by which channel: the team, and no outbound rule or email carries it here (issue 35)
  t.match(effects(a, 'page'), [{ reason: 'alert fired', teams: [{ id: teams.payments, name: 'Payments' }], outbound: [], email: false, notified: false, not_notified: 'no_channel' }]);
  t.same(kinds(a), ['routed', 'page', 'chat_post', 'investigation_requested', 'escalation_started'], 'the page starts the team\'s escalation (domain/paging)');

  await org.fire({ name: 'SlowRefunds', service: 'payments', severity: 'warning' });
  const b = await org.alert('SlowRefunds');
  t.same(routeIds(b), [routes.paymentsAny.id], 'a warning skips the critical route and takes the next');
  t.same(effects(b, 'page')[0].team_ids, [teams.platform]);
});

t.test('order is the routes\' position: moving a route changes which one wins', async (t) => {
  const { org, teams, routes } = await routed(t);
  const moved = await org.api.put(`${CONFIG}/alert_routes/${routes.paymentsAny.id}`, { move: 'up' });
  t.equal(moved.status, 200);
  t.equal(moved.body.data.position, 1);
  await org.fire({ name: 'CardDeclines', service: 'payments', severity: 'critical' });
  const a = await org.alert('CardDeclines');
  t.same(routeIds(a), [routes.paymentsAny.id], 'now the broader route comes first and wins');
  t.same(effects(a, 'page')[0].team_ids, [teams.platform]);
});

t.test('continue: every matching route applies; the first override sets the severity, and repeats keep it', async (t) => {
  const { org, teams, routes } = await routed(t);
  await org.fire({ name: 'Disk full', service: 'db', severity: 'critical' });
  let a = await org.alert('Disk full');
  t.same(routeIds(a), [routes.disk.id, routes.db.id], 'the continuing route, then the next match; evaluation stopped there');
  t.equal(a.severity, 'info', 'severity_override replaced the product\'s critical');
  t.same(effects(a, 'page')[0].team_ids, [teams.platform, teams.payments], 'both teams are paged');
  await org.fire({ name: 'Disk full', service: 'db', severity: 'critical' });
  a = await org.alert('Disk full');
  t.equal(a.occurrences, 2);
  t.equal(a.severity, 'info', 'a repeat keeps the routed severity');
});

t.test('a route that pages no one records the alert; an alert no route matches pages no one; disabled routes are skipped', async (t) => {
  const { org, routes } = await routed(t);
  await org.fire({ name: 'Flaky', service: 'search', labels: { env: 'staging-3' } });
  const quiet = await org.alert('Flaky');
  t.same(effects(quiet, 'routed'), [{ route_id: routes.staging.id, route: 'staging noise', team_id: null, team: null, pages: false, severity_override: null }]);
  t.same(effects(quiet, 'page'), [], 'no page');
  t.same(effects(quiet, 'page_skipped'), [{ reason: 'route_does_not_page' }]);

  await org.fire({ name: 'Unrouted', service: 'web' });
  const lost = await org.alert('Unrouted');
  t.same(effects(lost, 'routed'), [{ route_id: null, route: null, team_id: null, pages: false }], 'no route matched (the disabled catch-all was skipped)');
  t.same(effects(lost, 'page_skipped'), [{ reason: 'no_route' }]);
});

t.test('a deleted team pages no one; an organization without routes pages as before, naming no team', async (t) => {
  const { org, teams } = await routed(t);
  t.equal((await org.api.del(`${CONFIG}/teams/${teams.payments}`)).status, 204);
  await org.fire({ name: 'CardDeclines', service: 'payments', severity: 'critical' });
  const a = await org.alert('CardDeclines');
  t.match(effects(a, 'routed')[0], { route: 'payments critical', team_id: null, pages: false });
  t.same(effects(a, 'page_skipped'), [{ reason: 'route_does_not_page' }]);

  const plain: AlertOrg = await alertOrg(vigil);
  t.teardown(() => plain.agent.close());
  await plain.fire({ name: 'DiskFull', service: 'db' });
  t.same(kinds(await plain.alert('DiskFull')), ['page', 'chat_post', 'investigation_requested'], 'no routed effect, and the page names no team');
});
