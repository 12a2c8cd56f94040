/** Outgoing mail's deployment settings (`VIGIL_SMTP_URL`, `VIGIL_EMAIL_FROM`, read in bin/env.ts), declared on the engine's ServiceConfig. */

/** how email notifications are sent (smtp:// or smtps://, may hold a password); absent, the email channel sends nothing */
export interface EmailSettings {
  smtpUrl: string;
  from: string;
}

declare module '../../engine/config.ts' {
  interface ServiceConfig {
    email?: EmailSettings;
  }
}
