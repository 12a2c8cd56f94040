/**
 * What `resolve_service_bindings` folds under a stored override: values discovered in the organization's
 * cloud accounts (pluggable; none by default, so discovery contributes nothing until a provider is set) and
 * the OpenTelemetry convention (`service.name`, `deployment.environment`). Discovery results are cached per
 * organization; every write to a service binding invalidates that organization's cache (spec binding rule 6).
 */
import type { Row } from '../../engine/descriptor.ts';

export const BINDING_FIELDS = ['account_id', 'region', 'log_groups', 'log_filter', 'trace_service_names', 'metric_selectors'] as const;
export type BindingField = (typeof BINDING_FIELDS)[number];

/** Discovered values for one service and environment; a field left out was not discovered. */
export type Discovered = Partial<Record<BindingField, unknown>>;

export interface DiscoveryProvider {
  discover(organizationId: string, service: string, environment: string): Promise<Discovered>;
}

const nothing: DiscoveryProvider = { discover: async () => ({}) };
let provider: DiscoveryProvider = nothing;
const cache = new Map<string, Map<string, Discovered>>();

/** Installs a discovery provider (tests, or a deployment's cloud integration); `undefined` restores none. */
export function setDiscoveryProvider(next: DiscoveryProvider | undefined): void {
  provider = next ?? nothing;
  cache.clear();
}

export function invalidateDiscovery(organizationId: string): void {
  cache.delete(organizationId);
}

export async function discovered(organizationId: string, service: string, environment: string): Promise<Discovered> {
  const byBinding = cache.get(organizationId) ?? new Map<string, Discovered>();
  cache.set(organizationId, byBinding);
  const key = `${service}/${environment}`;
  let found = byBinding.get(key);
  if (!found) byBinding.set(key, (found = await provider.discover(organizationId, service, environment)));
  return found;
}

/** The OpenTelemetry convention: traces by `service.name`, logs filtered on the service's resource attributes. */
export function convention(service: string, environment: string): Discovered {
  const filter = `resource.service.name = "${service.replace(/"/g, '\\"')}"`;
  return {
    trace_service_names: [service],
    log_filter: environment ? `${filter} and resource.deployment.environment = "${environment.replace(/"/g, '\\"')}"` : filter,
  };
}

export type Source = 'override' | 'discovery' | 'convention' | 'unbound';

/** Each field's value in force and where it came from: the stored override, then discovery, then the convention. */
export function resolve(override: Row | null, found: Discovered, conventional: Discovered): Record<BindingField, { value: unknown; source: Source }> {
  const out = {} as Record<BindingField, { value: unknown; source: Source }>;
  for (const field of BINDING_FIELDS) {
    const stored = override?.[field];
    if (stored !== null && stored !== undefined) out[field] = { value: stored, source: 'override' };
    else if (found[field] !== undefined) out[field] = { value: found[field], source: 'discovery' };
    else if (conventional[field] !== undefined) out[field] = { value: conventional[field], source: 'convention' };
    else out[field] = { value: null, source: 'unbound' };
  }
  return out;
}
