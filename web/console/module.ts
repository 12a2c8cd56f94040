/** The console for people on call: its routes (the stylesheet with them). The sign-in counts' store comes from bin/modules.ts. */
import type { CountStore } from '../../engine/http/rate-limit.ts';
import type { Module } from '../../engine/module.ts';
import type { DomainOperation, Services } from '../../engine/services.ts';
import { consoleRoutes } from './routes.ts';
import { SignInThrottle } from './sign-in-throttle.ts';

export interface ConsoleOptions {
  /**
   * the inbound delivery log's list operation (webhooks/delivery-log/tool.ts), handed in by bin/modules.ts: the console
   * may not import webhooks/ (docs/layout.md); without it `/deliveries` answers 404
   */
  deliveryLog?: DomainOperation;
  /** where failed sign-ins are counted (shared by the instances), built once the services exist */
  signInCounts?: (services: Services) => CountStore;
}

export function consoleModule(options: ConsoleOptions = {}): Module {
  return {
    name: 'console',
    rawRoutes: [(services) => {
      const counts = options.signInCounts?.(services);
      return consoleRoutes(services, counts ? new SignInThrottle(counts, services.clock) : undefined, options.deliveryLog);
    }],
  };
}
