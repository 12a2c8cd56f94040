/** Twilio's deployment settings (`VIGIL_TWILIO_*`, read in bin/env.ts), declared on the engine's ServiceConfig. */

export const DEFAULT_TWILIO_API = 'https://api.twilio.com';

export interface TwilioSettings {
  /** where Twilio's REST API is (default https://api.twilio.com); tests point it at a local server. The auth token goes only here. */
  apiUrl: string;
  /** the operator's account, used by an organization that saved none of its own; all three set, or none */
  accountSid: string | null;
  authToken: string | null;
  /** a number in E.164, or a Messaging Service SID (MG…) */
  from: string | null;
}

declare module '../../../engine/config.ts' {
  interface ServiceConfig {
    twilio?: TwilioSettings;
  }
}
