/**
 * The one way a part of the service plugs into the engine: a Module lists what it brings, and `serve({ modules })`
 * mounts them all. The engine knows no module by name; bin/modules.ts holds the one list.
 */
import type { EntitySchema } from '@mikro-orm/core';
import type { FamilyDescriptor } from './descriptor.ts';
import type { Registry } from './registry.ts';
import type Router from '@koa/router';
import type { AuditListener, DomainOperation, Services } from './services.ts';
import type { JobHandler } from './jobs/types.ts';

export type RouterFactory = (services: Services) => Router;

export interface Module {
  /** unique among the modules served: named in errors */
  name: string;
  /** tables, created by the same migrations as the engine's */
  entities?: readonly EntitySchema[];
  /**
   * the families its code reads (through `registry.family`): served without one of them, the start stops and says
   * which, instead of the part quietly acting as if the family held no rows
   */
  families?: readonly Pick<FamilyDescriptor, 'name'>[];
  /** operations served under /api/v1/config (where they declare a REST path) and as agent tools (unless `agentTool: false`) */
  operations?: readonly DomainOperation[];
  /** background job handlers, one per queue (engine/jobs) */
  jobs?: readonly JobHandler[];
  /** routes mounted after the JSON body parser, before the configuration API */
  routes?: readonly RouterFactory[];
  /**
   * routes that read their own request bodies as raw bytes (webhooks: signatures are computed over the bytes sent,
   * and some senders post text/plain), mounted before the JSON-only check and the JSON body parser
   */
  rawRoutes?: readonly RouterFactory[];
  /** told of every audit entry inside its write's transaction (engine/operations/audit.ts) */
  auditListeners?: readonly AuditListener[];
  /** runs once the instance serves and works jobs (seeding recurring jobs, per-instance settings), in module order */
  onStart?: (services: Services) => Promise<void>;
  /** runs when the instance closes, after requests in flight finished and before jobs stop and the database closes */
  onClose?: (services: Services) => Promise<void>;
}

/** Names of modules, of their operations and of their job queues are each unique: a clash stops the start, naming both. */
export function checkModules(modules: readonly Module[]): void {
  const seen = { module: new Map<string, string>(), operation: new Map<string, string>(), 'job queue': new Map<string, string>() };
  const claim = (kind: keyof typeof seen, name: string, owner: string) => {
    const first = seen[kind].get(name);
    if (first === undefined) return void seen[kind].set(name, owner);
    if (kind === 'module') throw new Error(`Two modules are named ${name}: module names must be unique.`);
    throw new Error(`The ${kind} ${name} is registered twice, ${first === owner ? `by module ${owner}` : `by modules ${first} and ${owner}`}.`);
  };
  for (const m of modules) {
    claim('module', m.name, m.name);
    for (const op of m.operations ?? []) claim('operation', op.name, m.name);
    for (const job of m.jobs ?? []) claim('job queue', job.queue, m.name);
  }
}

/** Every family a module reads is served: one missing stops the start with a sentence naming the module and the family. */
export function checkModuleFamilies(modules: readonly Module[], registry: Registry): void {
  for (const m of modules) {
    for (const { name } of m.families ?? []) {
      if (!registry.get(name)) throw new Error(`The module ${m.name} reads the family ${name}, which the registry does not serve: serve the family, or serve without the ${m.name} module.`);
    }
  }
}
