/** The console for people on call: its routes (the stylesheet with them). Sign-in limiters come from bin/modules.ts. */
import type { CredentialLimiter } from '../../engine/http/rate-limit.ts';
import type { Module } from '../../engine/module.ts';
import type { Services } from '../../engine/services.ts';
import { consoleRoutes } from './routes.ts';

export interface ConsoleOptions {
  /** the sign-in rate limits' counters (per address, per account), built once the services exist */
  signInLimiters?: (services: Services) => { address: CredentialLimiter; account: CredentialLimiter };
}

export function consoleModule(options: ConsoleOptions = {}): Module {
  return {
    name: 'console',
    rawRoutes: [(services) => consoleRoutes(services, options.signInLimiters?.(services))],
  };
}
