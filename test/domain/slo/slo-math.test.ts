/** The SLO arithmetic (domain/slo/math.ts) and the gate's decision (domain/slo/gate.ts), as pure functions. */
import t from 'tap';
import { budgetRemaining, burnRate, evaluate, type WindowCounts } from '../../../domain/slo/math.ts';
import { decide, type GateSlo } from '../../../domain/slo/gate.ts';

const c = (good: number, total: number) => ({ good, total });
const all = (good: number, total: number): WindowCounts => ({ window: c(good, total), h1: c(good, total), m5: c(good, total), h6: c(good, total), m30: c(good, total) });

t.test('burn rate: the error rate as a multiple of the allowed one', async (t) => {
  const cases: [string, [number, number], number, number | null][] = [
    ['no events', [0, 0], 99.9, null],
    ['no errors', [100, 100], 99.9, 0],
    ['exactly the allowed rate', [999, 1000], 99.9, 1],
    ['the fast-burn threshold at 99.9', [9856, 10000], 99.9, 14.4],
    ['everything failing at 99', [0, 10], 99, 100],
  ];
  for (const [name, [good, total], target, want] of cases) {
    const got = burnRate(c(good, total), target);
    if (want === null) t.equal(got, null, name);
    else t.ok(Math.abs(got! - want) < 1e-9, `${name}: ${got} ≈ ${want}`);
  }
});

t.test('error budget remaining: 100 untouched, 0 spent, negative overspent', async (t) => {
  t.equal(budgetRemaining(c(0, 0), 99), null);
  t.equal(budgetRemaining(c(100, 100), 99), 100);
  t.ok(Math.abs(budgetRemaining(c(995, 1000), 99)! - 50) < 1e-9, 'half the errors allowed → 50 %');
  t.ok(Math.abs(budgetRemaining(c(990, 1000), 99)!) < 1e-9, 'all the errors allowed → 0 %');
  t.ok(budgetRemaining(c(980, 1000), 99)! < 0, 'twice the errors allowed → negative');
});

t.test('status transitions', async (t) => {
  const cases: [string, WindowCounts, number, string, { fast?: boolean; slow?: boolean }][] = [
    ['no runs → no_data', all(0, 0), 99, 'no_data', {}],
    ['all good → ok', all(1000, 1000), 99, 'ok', {}],
    ['budget spent → breaching', all(980, 1000), 99, 'breaching', { fast: false }],
    ['a fast burn in both short windows → at_risk', { window: c(9990, 10000), h1: c(80, 100), m5: c(8, 10), h6: c(500, 600), m30: c(50, 50) }, 99, 'at_risk', { fast: true, slow: false }],
    ['a long window burning but the short one recovered → no fast burn', { window: c(9990, 10000), h1: c(80, 100), m5: c(10, 10), h6: c(590, 600), m30: c(50, 50) }, 99, 'ok', { fast: false }],
    ['a slow burn (6 h and 30 min at ≥ 6×) → at_risk', { window: c(99_900, 100_000), h1: c(95, 100), m5: c(10, 10), h6: c(560, 600), m30: c(46, 50) }, 99, 'at_risk', { fast: false, slow: true }],
    ['less than 25 % left → at_risk', all(9920, 10000), 99, 'at_risk', { fast: false }],
  ];
  for (const [name, counts, target, status, burns] of cases) {
    const e = evaluate(counts, target);
    t.equal(e.status, status, name);
    if (burns.fast !== undefined) t.equal(e.fast_burn, burns.fast, `${name}: fast burn`);
    if (burns.slow !== undefined) t.equal(e.slow_burn, burns.slow, `${name}: slow burn`);
  }
  const e = evaluate({ window: c(995, 1000), h1: c(9, 10), m5: c(1, 1), h6: c(9, 10), m30: c(1, 1) }, 99);
  t.equal(e.error_budget_remaining_percent, 50);
  t.equal(e.burn_rate, 10, 'burn_rate is the last hour’s');
  t.equal(evaluate(all(0, 0), 99).burn_rate, null);
});

const NOW = new Date('2026-03-01T12:00:00Z');
const ok = evaluate(all(1000, 1000), 99);
const slo = (name: string, counts: WindowCounts): GateSlo => ({ id: `id-${name}`, name, evaluation: evaluate(counts, 99) });
const policy = (over: Record<string, unknown> = {}) => ({
  id: 'p', service: 'checkout', enabled: true, error_budget_threshold: 10, burn_rate_block_enabled: true, incident_block_enabled: true,
  freeze_reason: null, freeze_until: null, override_allow: null, override_until: null, override_by: null, override_reason: null, ...over,
});
const incident = { id: 'i1', title: 'checkout down', severity: 'critical', opened_at: NOW.toISOString() };
const fast = { window: c(9990, 10000), h1: c(80, 100), m5: c(8, 10), h6: c(500, 600), m30: c(50, 50) };
const codes = (findings: { code: string }[]) => findings.map((f) => f.code);

t.test('gate: each reason holds, and the switched-off block becomes an advisory', async (t) => {
  t.same(decide({ policy: policy(), slos: [{ id: 'a', name: 'a', evaluation: ok }], incidents: [], now: NOW }), { decision: 'allow', reasons: [], advisories: [] });

  const frozen = decide({ policy: policy({ freeze_reason: 'release train', freeze_until: '2026-03-02T00:00:00Z' }), slos: [], incidents: [], now: NOW });
  t.equal(frozen.decision, 'hold');
  t.match(frozen.reasons, [{ code: 'frozen', reason: 'release train', until: '2026-03-02T00:00:00.000Z' }]);
  t.equal(decide({ policy: policy({ freeze_reason: 'lapsed', freeze_until: '2026-03-01T00:00:00Z' }), slos: [], incidents: [], now: NOW }).decision, 'allow', 'a lapsed freeze holds nothing');

  const low = slo('low', all(9950, 10000)); // 50 % left is fine at 10, held at 60
  t.equal(decide({ policy: policy(), slos: [low], incidents: [], now: NOW }).decision, 'allow');
  const held = decide({ policy: policy({ error_budget_threshold: 60 }), slos: [low], incidents: [], now: NOW });
  t.match(held, { decision: 'hold', reasons: [{ code: 'error_budget', slo_id: 'id-low', remaining_percent: 50, threshold: 60 }] });
  const spent = slo('spent', all(9800, 10000));
  t.match(decide({ policy: policy({ error_budget_threshold: 0 }), slos: [spent], incidents: [], now: NOW }), { decision: 'allow', reasons: [], advisories: [{ code: 'error_budget', threshold: 0 }] }, '0 switches the budget block off');

  const burning = slo('burning', fast);
  t.match(decide({ policy: policy(), slos: [burning], incidents: [], now: NOW }), { decision: 'hold', reasons: [{ code: 'fast_burn', slo_name: 'burning', threshold: 14.4 }] });
  t.match(decide({ policy: policy({ burn_rate_block_enabled: false }), slos: [burning], incidents: [], now: NOW }), { decision: 'allow', reasons: [], advisories: [{ code: 'fast_burn' }] });

  t.match(decide({ policy: policy(), slos: [], incidents: [incident], now: NOW }), { decision: 'hold', reasons: [{ code: 'critical_incident', incident_id: 'i1' }] });
  t.match(decide({ policy: policy({ incident_block_enabled: false }), slos: [], incidents: [incident], now: NOW }), { decision: 'allow', advisories: [{ code: 'critical_incident' }] });

  const every = decide({ policy: policy({ freeze_reason: 'x', error_budget_threshold: 99 }), slos: [burning], incidents: [incident], now: NOW });
  t.same(codes(every.reasons), ['frozen', 'error_budget', 'fast_burn', 'critical_incident'], 'every reason, not the first');
  t.same(codes(decide({ policy: policy(), slos: [slo('empty', all(0, 0))], incidents: [], now: NOW }).advisories), ['no_data']);
});

t.test('gate: a missing or disabled policy gates with the defaults; its freeze does not', async (t) => {
  const none = decide({ policy: null, slos: [slo('burning', fast)], incidents: [incident], now: NOW });
  t.equal(none.decision, 'hold');
  t.same(codes(none.reasons), ['fast_burn', 'critical_incident']);
  t.match(none.advisories, [{ code: 'defaults_applied', error_budget_threshold: 10, burn_rate_block_enabled: true, incident_block_enabled: true }]);
  const disabled = decide({ policy: policy({ enabled: false, freeze_reason: 'x', incident_block_enabled: false }), slos: [], incidents: [incident], now: NOW });
  t.same(codes(disabled.reasons), ['critical_incident'], 'defaults, not the disabled policy’s switches; no freeze');
});

t.test('gate: an active override decides alone and says so', async (t) => {
  const until = '2026-03-01T18:00:00.000Z';
  const allow = decide({ policy: policy({ freeze_reason: 'x', override_allow: true, override_until: until, override_by: 'api_key:k', override_reason: 'hotfix' }), slos: [], incidents: [incident], now: NOW });
  t.match(allow, { decision: 'allow', reasons: [{ code: 'override', allow: true, by: 'api_key:k', until, reason: 'hotfix' }] });
  t.same(codes(allow.advisories), ['frozen', 'critical_incident'], 'what it let through stays visible');
  const hold = decide({ policy: policy({ override_allow: false, override_until: until, override_reason: 'launch' }), slos: [], incidents: [], now: NOW });
  t.match(hold, { decision: 'hold', reasons: [{ code: 'override', allow: false }] });
  const lapsed = decide({ policy: policy({ override_allow: false, override_until: '2026-03-01T11:00:00Z' }), slos: [], incidents: [], now: NOW });
  t.equal(lapsed.decision, 'allow', 'a lapsed override decides nothing');
});
