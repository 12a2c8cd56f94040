/** The console for people on call: its routes (the stylesheet with them). Sign-in limiters come from bin/modules.ts. */
import type { CredentialLimiter } from '../../engine/http/rate-limit.ts';
import type { Module } from '../../engine/module.ts';
import type { DomainOperation, Services } from '../../engine/services.ts';
import { consoleRoutes } from './routes.ts';

export interface ConsoleOptions {
  /** the sign-in rate limits' counters (per address, per account), built once the services exist */
  signInLimiters?: (services: Services) => { address: CredentialLimiter; account: CredentialLimiter };
  /**
   * the inbound delivery log's list operation (webhooks/delivery-log/tool.ts), handed in by bin/modules.ts: the console
   * may not import webhooks/ (docs/layout.md); without it `/deliveries` answers 404
   */
  deliveryLog?: DomainOperation;
}

export function consoleModule(options: ConsoleOptions = {}): Module {
  return {
    name: 'console',
    rawRoutes: [(services) => consoleRoutes(services, options.signInLimiters?.(services), options.deliveryLog)],
  };
}
