/** Plans, features and roles (DESIGN.md "Plans and features"). */
export const PLANS = ['free', 'team', 'business', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export const FEATURES = {
  config_api: { label: 'the configuration API', plans: ['business', 'enterprise'] },
  mcp: { label: 'the agent-tool server', plans: ['business', 'enterprise'] },
  byo_ai_provider: { label: 'bring-your-own AI providers', plans: ['business', 'enterprise'] },
  status_page: { label: 'the status page', plans: ['team', 'business', 'enterprise'] },
  ops_board: { label: 'the ops board', plans: ['team', 'business', 'enterprise'] },
  ticket_systems: { label: 'ticket systems', plans: ['team', 'business', 'enterprise'] },
  fix_pull_requests: { label: 'fix pull requests', plans: ['business', 'enterprise'] },
  compliance: { label: 'compliance', plans: ['enterprise'] },
  insights: { label: 'insights', plans: ['team', 'business', 'enterprise'] },
  // the team plan sees the last 7 days of insights; this is everything before
  insights_history: { label: 'insights older than 7 days', plans: ['business', 'enterprise'] },
} as const satisfies Record<string, { label: string; plans: readonly Plan[] }>;

export type Feature = keyof typeof FEATURES;

export const ROLES = ['viewer', 'member', 'org_admin'] as const;
export type Role = (typeof ROLES)[number];

export function roleAtLeast(have: Role, need: Role): boolean {
  return ROLES.indexOf(have) >= ROLES.indexOf(need);
}

export function isPlan(value: unknown): value is Plan {
  return typeof value === 'string' && (PLANS as readonly string[]).includes(value);
}

export function isFeature(value: unknown): value is Feature {
  return typeof value === 'string' && Object.hasOwn(FEATURES, value);
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Whether an organization has a feature: its plan's table, overridden per organization by the operator. */
export function hasFeature(plan: Plan, overrides: Partial<Record<string, boolean>>, feature: Feature): boolean {
  const override = overrides[feature];
  if (typeof override === 'boolean') return override;
  return (FEATURES[feature].plans as readonly Plan[]).includes(plan);
}
