/**
 * The deploy gate's decision, pure: from the service's policy (or the defaults), its SLO evaluations and its
 * open critical incidents, `allow` or `hold` with every reason. A block that is switched off still reports
 * its condition, as an advisory. An active override decides alone and says so; what it overrides is listed
 * as advisories, so a CI log shows what was let through.
 */
import { frozenAt, overrideActiveAt } from '../../resources/deploy_policies.ts';
import type { Row } from '../../engine/descriptor.ts';
import { FAST_BURN, SLOW_BURN, type Evaluation } from './math.ts';

/** What gates a service without an enabled policy: the descriptor's defaults (the spec: "falls back to defaults"). */
export const DEFAULT_GATE = { error_budget_threshold: 10, burn_rate_block_enabled: true, incident_block_enabled: true } as const;

export interface GateSlo {
  id: string;
  name: string;
  evaluation: Evaluation;
}

export interface GateIncident {
  id: string;
  title: string;
  severity: string;
  opened_at: string;
}

export interface GateFinding {
  code: 'override' | 'frozen' | 'error_budget' | 'fast_burn' | 'slow_burn' | 'critical_incident' | 'no_data' | 'defaults_applied';
  message: string;
  [detail: string]: unknown;
}

export interface GateAnswer {
  decision: 'allow' | 'hold';
  reasons: GateFinding[];
  advisories: GateFinding[];
}

const iso = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string | Date).toISOString());

export function decide(input: { policy: Row | null; slos: GateSlo[]; incidents: GateIncident[]; now: Date }): GateAnswer {
  const { policy, slos, incidents, now } = input;
  const enabled = policy !== null && policy.enabled !== false;
  const rules = enabled
    ? { error_budget_threshold: Number(policy.error_budget_threshold), burn_rate_block_enabled: policy.burn_rate_block_enabled !== false, incident_block_enabled: policy.incident_block_enabled !== false }
    : DEFAULT_GATE;
  const blocks: GateFinding[] = [];
  const advisories: GateFinding[] = [];
  const report = (blocking: boolean, finding: GateFinding) => (blocking ? blocks : advisories).push(finding);

  if (!enabled) {
    advisories.push({
      code: 'defaults_applied',
      message: policy ? 'The policy of this service is disabled; the default gate applies.' : 'No deploy policy names this service; the default gate applies.',
      ...DEFAULT_GATE,
    });
  }
  // a disabled policy's freeze gates nothing until the policy is enabled again (the descriptor)
  if (enabled && frozenAt(policy, now)) {
    blocks.push({ code: 'frozen', message: `Deploys of this service are frozen: ${String(policy.freeze_reason)}`, reason: policy.freeze_reason, until: iso(policy.freeze_until) });
  }
  for (const { id, name, evaluation: e } of slos) {
    const slo = { slo_id: id, slo_name: name };
    if (e.status === 'no_data') {
      advisories.push({ code: 'no_data', message: `SLO ${name} has no data in its window; it neither holds nor allows.`, ...slo });
      continue;
    }
    const remaining = e.error_budget_remaining_percent!;
    if (remaining < rules.error_budget_threshold || (rules.error_budget_threshold === 0 && remaining <= 0)) {
      report(rules.error_budget_threshold > 0, {
        code: 'error_budget',
        message: `SLO ${name} has ${remaining}% of its error budget left, under the threshold of ${rules.error_budget_threshold}%${rules.error_budget_threshold > 0 ? '' : ' (the budget block is off)'}.`,
        ...slo, remaining_percent: remaining, threshold: rules.error_budget_threshold,
      });
    }
    if (e.fast_burn) {
      report(rules.burn_rate_block_enabled, {
        code: 'fast_burn',
        message: `SLO ${name} burns its error budget fast: ${round(e.burn_rates.h1)}× over 1 h and ${round(e.burn_rates.m5)}× over 5 min (threshold ${FAST_BURN.threshold}×)${rules.burn_rate_block_enabled ? '' : '; the burn-rate block is off'}.`,
        ...slo, burn_rate_1h: round(e.burn_rates.h1), burn_rate_5m: round(e.burn_rates.m5), threshold: FAST_BURN.threshold,
      });
    } else if (e.slow_burn) {
      // a slow burn is a ticket, not a page (the workbook): it never holds a deploy
      advisories.push({
        code: 'slow_burn',
        message: `SLO ${name} burns its error budget steadily: ${round(e.burn_rates.h6)}× over 6 h and ${round(e.burn_rates.m30)}× over 30 min (threshold ${SLOW_BURN.threshold}×).`,
        ...slo, burn_rate_6h: round(e.burn_rates.h6), burn_rate_30m: round(e.burn_rates.m30), threshold: SLOW_BURN.threshold,
      });
    }
  }
  for (const incident of incidents) {
    report(rules.incident_block_enabled, {
      code: 'critical_incident',
      message: `Critical incident "${incident.title}" affecting this service is open${rules.incident_block_enabled ? '' : '; the incident block is off'}.`,
      incident_id: incident.id, title: incident.title, opened_at: incident.opened_at,
    });
  }

  if (policy && overrideActiveAt(policy, now)) {
    const allow = policy.override_allow === true;
    const override: GateFinding = {
      code: 'override',
      message: `An override ${allow ? 'allows' : 'holds'} deploys of this service until ${iso(policy.override_until)}: ${String(policy.override_reason ?? '')}`,
      allow, by: policy.override_by, until: iso(policy.override_until), reason: policy.override_reason,
    };
    return allow
      ? { decision: 'allow', reasons: [override], advisories: [...blocks, ...advisories] }
      : { decision: 'hold', reasons: [override, ...blocks], advisories };
  }
  return { decision: blocks.length ? 'hold' : 'allow', reasons: blocks, advisories };
}

function round(n: number | null): number | null {
  return n === null ? null : Math.round(n * 100) / 100;
}
