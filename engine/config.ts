/** Deployment settings the engine reads (from the environment, via bin/vigil.ts). */
export interface ServiceConfig {
  /** the address users reach the service at: Location headers and ready-made URLs are built from it */
  publicUrl: string;
  /** the platform principal a customer's cloud role must trust */
  trustPrincipalId: string;
  /** webhook source segments, for the ready-made URLs in the organization answer */
  webhookSources: readonly string[];
}
