/** What the engine is told of one inbound webhook source (the webhook side's list, handed over by bin/). */
export interface WebhookSourceFacts {
  /** the URL segment: `POST /webhooks/<segment>/<token>` */
  segment: string;
  /**
   * present when the organization saves the source's signing secret as configuration: the family holding those
   * secrets reads this to accept the source, answer its scheme and header, and list the signable sources in refusals
   */
  signing?: {
    scheme: string;
    /** the header the sender puts the signature (or the secret) in */
    header: string;
    /** how the sender signs, in words */
    notes: string;
    /** a secret is refused until the operator switched signing on for the organization */
    operatorSwitch: boolean;
  };
}

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
  /** the inbound webhook sources: ready-made URLs in the organization answer, metrics, signable sources */
  webhookSources: readonly WebhookSourceFacts[];
}
