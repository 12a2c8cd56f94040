/** Pushover's deployment settings (`VIGIL_PUSHOVER_API_URL`, `VIGIL_PUSHOVER_APP_TOKEN`, read in bin/env.ts), declared on the engine's ServiceConfig. */

export const DEFAULT_PUSHOVER_API = 'https://api.pushover.net';

export interface PushoverSettings {
  /** where Pushover's API is (default https://api.pushover.net); tests point it at a local server */
  apiUrl: string;
  /** the operator's application token, used by an organization that has none of its own */
  appToken: string | null;
}

declare module '../../../engine/config.ts' {
  interface ServiceConfig {
    pushover?: PushoverSettings;
  }
}
