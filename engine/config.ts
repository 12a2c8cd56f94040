/**
 * Deployment settings the engine reads (from the environment, via bin/env.ts). A part declares its own settings
 * on this interface where it lives (`declare module '…/engine/config.ts'`, as Fastify and Koa do): the engine
 * holds none of them and never reads them.
 */
export interface ServiceConfig {
  /** the address users reach the service at: Location headers and ready-made URLs are built from it */
  publicUrl: string;
  /** the platform principal a customer's cloud role must trust */
  trustPrincipalId: string;
  /** webhook source segments, for the ready-made URLs in the organization answer */
  webhookSources: readonly string[];
}
