/** The inbound webhook sources (spec "Inbound webhooks"); each gets a ready-made URL per organization. */
export const WEBHOOK_SOURCES = [
  'metric-dashboard',
  'incident-pager',
  'monitoring-a',
  'monitoring-b',
  'cloud-alarms',
  'cloud-audit',
  'deployments',
  'code-host',
  'tickets',
  'issue-tracker',
  'sprint-tracker',
  'fix-requests',
] as const;
