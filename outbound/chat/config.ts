/** The chat side's deployment settings (`VIGIL_CHAT_API_URL`, read in bin/env.ts), declared on the engine's ServiceConfig. */

/**
 * the chat product's Web API (default https://slack.com/api): where chat posts, thread replies and message updates
 * go with the organization's bot token; tests point it at a fake; `retryDelaysSeconds` replaces the retry schedule
 * of a failed chat call (tests)
 */
export interface ChatApiSettings {
  apiUrl: string;
  /**
   * the origin of the chat product's `response_url`s (`VIGIL_CHAT_RESPONSE_URL`, default https://hooks.slack.com):
   * a press's private reply goes to no other address
   */
  responseOrigin?: string;
  retryDelaysSeconds?: readonly number[];
}

declare module '../../engine/config.ts' {
  interface ServiceConfig {
    chat?: ChatApiSettings;
  }
}
