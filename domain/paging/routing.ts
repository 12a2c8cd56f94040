/**
 * Alert routing (resources/alert_routes.ts): the enabled routes in their order (`position`, 1 first); the first
 * route whose matchers all match wins and evaluation stops, unless it has `continue: true`, in which case later
 * routes are tried too and every matching one applies. A matcher compares one attribute of the alert as the
 * product sent it — `source`, `service`, `severity`, `title`, or the label `label_key` — with `value`: `equals`
 * and `contains` ignore case, `regex` is tested as written; an attribute the alert does not carry matches nothing.
 *
 * What the matched routes decide: the teams paged (routes with `pages` and a team that still exists), the teams
 * the alert is only recorded for (`pages: false`), and the severity (the first matched `severity_override`).
 * The routes are read once per delivery (`routesQuery`, in the pipeline's own round trip) and their regular
 * expressions compiled once; the routing itself is pure. Who is paged is the domain's decision: outbound/alerts.ts is
 * handed the teams and delivers.
 */
import type { Services } from '../../engine/services.ts';
import { tableName } from '../../engine/persistence/entities.ts';
import type { RowQuery } from '../../engine/persistence/sql.ts';
import { jsonValue } from '../../engine/persistence/store.ts';
import alertRoutes, { type ALERT_SEVERITIES } from '../../resources/alert_routes.ts';
import teamsFamily from '../../resources/teams.ts';

type AlertSeverity = (typeof ALERT_SEVERITIES)[number];

interface Matcher {
  field: 'source' | 'service' | 'severity' | 'title' | 'label';
  operator: 'equals' | 'contains' | 'regex';
  value: string;
  label_key?: string;
}

export interface Route {
  id: string;
  name: string;
  matchers: Matcher[];
  /** null when the route names no team, or its team was deleted */
  team_id: string | null;
  team: string | null;
  pages: boolean;
  severity_override: AlertSeverity | null;
  continue: boolean;
  /** the compiled regex of each matcher (null for the other operators, or one that no longer compiles) */
  compiled: (RegExp | null)[];
}

export interface RoutedAlert {
  source: string;
  service?: string | null;
  severity: string;
  title: string;
  labels: Record<string, string>;
}

export interface Routing {
  matched: Route[];
  /** teams the alert pages */
  paged: { id: string; name: string }[];
  severity: AlertSeverity | null;
}

const compile = (m: Matcher): RegExp | null => {
  if (m.operator !== 'regex') return null;
  try {
    return new RegExp(m.value);
  } catch {
    return null;
  }
};

export function parseRoutes(value: unknown): Route[] {
  if (!Array.isArray(value)) return [];
  return value.map((r) => {
    const matchers = (typeof r.matchers === 'string' ? JSON.parse(r.matchers) : (r.matchers ?? [])) as Matcher[];
    return { ...r, matchers, compiled: matchers.map(compile) } as Route;
  });
}

function attribute(alert: RoutedAlert, m: Matcher): string | undefined {
  if (m.field === 'label') return m.label_key === undefined ? undefined : alert.labels[m.label_key];
  const value = alert[m.field];
  return value === null || value === undefined ? undefined : String(value);
}

function matches(route: Route, alert: RoutedAlert): boolean {
  return route.matchers.every((m, i) => {
    const value = attribute(alert, m);
    if (value === undefined) return false;
    if (m.operator === 'equals') return value.toLowerCase() === m.value.toLowerCase();
    if (m.operator === 'contains') return value.toLowerCase().includes(m.value.toLowerCase());
    return route.compiled[i]?.test(value) ?? false;
  });
}

/** The routes an alert takes, in order: the first match, and more while a matched route says `continue`. */
export function routeAlert(routes: readonly Route[], alert: RoutedAlert): Routing {
  const matched: Route[] = [];
  for (const route of routes) {
    if (!matches(route, alert)) continue;
    matched.push(route);
    if (!route.continue) break;
  }
  const paged = new Map<string, string>();
  for (const r of matched) if (r.pages && r.team_id) paged.set(r.team_id, r.team ?? '');
  return {
    matched,
    paged: [...paged].map(([id, name]) => ({ id, name })),
    severity: matched.find((r) => r.severity_override)?.severity_override ?? null,
  };
}

/** The `routed` effects of a fire's routing (none when the organization has no enabled route). */
export function routedEffects(routing: Routing | null): Record<string, unknown>[] {
  if (!routing) return [];
  if (routing.matched.length === 0) return [{ route_id: null, route: null, team_id: null, pages: false }];
  return routing.matched.map((r) => ({ route_id: r.id, route: r.name, team_id: r.team_id, team: r.team, pages: r.pages && r.team_id !== null, severity_override: r.severity_override }));
}

/** The routing of a fire, or null when the organization has no enabled route. */
export function routeFire(routes: readonly Route[], alert: RoutedAlert): Routing | null {
  return routes.length === 0 ? null : routeAlert(routes, alert);
}

/** The organization's enabled alert routes in order, with their team's id and name (null when deleted), as one column `routes`. */
export function routesQuery(services: Services, organizationId: string): RowQuery<Route[]> {
  const table = (d: Parameters<Services['registry']['family']>[0]) => `"${tableName(services.registry.family(d))}"`;
  return {
    sql: `select (select coalesce(json_agg(json_build_object('id', a.id, 'name', a.name, 'matchers', a.matchers, 'team_id', t.id, 'team', t.name,
                 'pages', coalesce(a.pages, true), 'severity_override', a.severity_override, 'continue', coalesce(a."continue", false)) order by a.position, a.created_at), '[]'::json)
           from ${table(alertRoutes)} a left join ${table(teamsFamily)} t on t.organization_id = a.organization_id and t.id = a.team_id
          where a.organization_id = ? and coalesce(a.enabled, true)) as routes`,
    params: [organizationId],
    read: (row) => parseRoutes(jsonValue(row?.routes)),
  };
}
