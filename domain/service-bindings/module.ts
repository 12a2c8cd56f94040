/**
 * Service bindings beyond the family's CRUD: `resolve_service_bindings` (the override folded over discovery and the
 * OpenTelemetry convention) and the discovery cache every binding write empties for its organization (spec binding
 * rule 6), told by the write's audit entry.
 */
import type { Module } from '../../engine/module.ts';
import type { AuditListener } from '../../engine/services.ts';
import serviceBindings from '../../resources/service_bindings.ts';
import { invalidateDiscovery } from './discovery.ts';
import { resolveServiceBindings } from './resolve.ts';

/**
 * Runs inside the write's transaction, so before its commit: what is cached is what discovery found, which no
 * binding write changes, so a resolve between this and the commit caches nothing stale.
 */
const forgetDiscovery: AuditListener = {
  concerns: (_services, entry) => entry.family === serviceBindings.name,
  record: async (_services, _store, entry) => {
    if (entry.family === serviceBindings.name) invalidateDiscovery(entry.organizationId);
  },
};

export const serviceBindingsModule: Module = { name: 'service-bindings', families: [serviceBindings], operations: [resolveServiceBindings], auditListeners: [forgetDiscovery] };
