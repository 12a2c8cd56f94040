/**
 * `check_deploy_gate`: may this service deploy now? For CI systems (REST: `GET /api/v1/config/deploy_gate
 * ?service=&environment=`, any config key) and agents. SLOs belong to a service through their SLI's `service`;
 * incidents through their alerts' `service`. Policies and SLIs are per service, not per environment, so
 * `environment` is echoed and changes nothing (yet).
 */
import Type from 'typebox';
import type { DomainOperation } from '../../engine/services.ts';
import { readStore } from '../../engine/operations/context.ts';
import { refreshSlos } from './evaluate.ts';
import { decide } from './gate.ts';
import deployPolicies from '../../resources/deploy_policies.ts';

const name = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });
const FINDING = Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: true });

export const checkDeployGate: DomainOperation = {
  name: 'check_deploy_gate',
  description:
    'Answers whether a deploy of `service` may go ahead now: `decision` allow or hold, `reasons` (every condition that holds it: frozen, an SLO ' +
    'with less error budget left than the policy\'s error_budget_threshold, an SLO burning fast — 14.4× over both 1 h and 5 min —, an open ' +
    'critical incident whose alerts name the service) and `advisories` (conditions whose block the policy switched off, slow burns — 6× over 6 h ' +
    'and 30 min —, SLOs without data, and the defaults applied when no enabled policy names the service: threshold 10 %, both blocks on). ' +
    'An active override (set over REST by an org admin) allows or holds alone and is the first reason. SLOs count for the service their SLI names.',
  input: Type.Object(
    { service: name('the service as deploy events name it'), environment: Type.Optional(name('the environment deployed to; echoed, policies are per service')) },
    { additionalProperties: false },
  ),
  role: 'viewer',
  kind: 'read',
  rest: { method: 'GET', path: 'deploy_gate' },
  answer: {
    schema: Type.Object({
      service: Type.String(),
      environment: Type.Union([Type.String(), Type.Null()]),
      decision: Type.Union([Type.Literal('allow'), Type.Literal('hold')]),
      reasons: Type.Array(FINDING),
      advisories: Type.Array(FINDING),
      policy_id: Type.Union([Type.String(), Type.Null()], { description: 'the policy naming the service, or null' }),
      evaluated_at: Type.String({ format: 'date-time' }),
    }),
  },
  async run(services, caller, input) {
    const service = String(input.service);
    const organizationId = caller.organization.id;
    const now = services.clock.now();
    const store = readStore(services);
    const [policy] = await store.list(services.registry.family(deployPolicies), organizationId, { where: { service } });
    const evaluations = await refreshSlos(services, organizationId, { service });
    const incidents = await store.execute(
      `select i.id, i.title, i.severity, i.opened_at from incidents i
       where i.organization_id = ? and i.status = 'open' and i.severity = 'critical'
         and exists (select 1 from alerts a where a.organization_id = i.organization_id and a.incident_id = i.id and a.service = ?)
       order by i.opened_at`,
      [organizationId, service],
    );
    const answer = decide({
      policy: policy ?? null,
      now,
      slos: evaluations.map((e) => ({ id: String(e.slo.id), name: String(e.slo.name), evaluation: e.evaluation })),
      incidents: incidents.map((i) => ({ id: String(i.id), title: String(i.title), severity: String(i.severity), opened_at: new Date(i.opened_at as string).toISOString() })),
    });
    return {
      json: { service, environment: typeof input.environment === 'string' ? input.environment : null, ...answer, policy_id: policy ? String(policy.id) : null, evaluated_at: now.toISOString() },
    };
  },
};

export const SLO_OPERATIONS: DomainOperation[] = [checkDeployGate];
