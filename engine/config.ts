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

/** Deployment settings the engine reads (from the environment, via bin/vigil.ts). */
export interface ServiceConfig {
  /** the address users reach the service at: Location headers and ready-made URLs are built from it */
  publicUrl: string;
  /** the platform principal a customer's cloud role must trust */
  trustPrincipalId: string;
  /** the inbound webhook sources: ready-made URLs in the organization answer, metrics, signable sources */
  webhookSources: readonly WebhookSourceFacts[];
  /**
   * the deployment's own ("platform") AI provider (`VIGIL_AI_*`): an OpenAI-compatible endpoint, used when an
   * organization's own providers do not answer (never under `own_providers_only`); its `model` is also the
   * platform default model that a provider row's null or `auto` model stands for
   */
  ai?: { baseUrl: string; apiKey?: string; model?: string };
  /** USD per million input and output tokens per model id (`VIGIL_AI_PRICES`), over the built-in table */
  aiPrices?: Record<string, { input: number; output: number }>;
  /**
   * the deployment's code-host app (`VIGIL_CODE_HOST_API_URL`, `VIGIL_CODE_HOST_APP_ID`,
   * `VIGIL_CODE_HOST_APP_PRIVATE_KEY`): the REST API's base URL (GitHub's shape) and the app that organizations
   * install; fix pull requests act as that app's installation
   */
  codeHost?: { apiUrl: string; appId?: string; privateKey?: string; timeoutMs?: number };
  /**
   * outbound requests to addresses users configure (outbound/net): `allowLoopback`
   * (`VIGIL_OUTBOUND_ALLOW_LOOPBACK=on`) lets them reach 127.0.0.0/8 and ::1, and `allowedNetworks`
   * (`VIGIL_OUTBOUND_ALLOWED_NETWORKS`, CIDRs) the networks listed, refused otherwise like every private address;
   * `resolve` replaces the system resolver and `retryDelaysSeconds` the delivery retry schedule (tests)
   */
  outbound?: {
    allowLoopback?: boolean;
    allowedNetworks?: readonly string[];
    resolve?: (hostname: string) => Promise<{ address: string; family: number }[]>;
    retryDelaysSeconds?: readonly number[];
  };
  /**
   * the chat product's Web API (`VIGIL_CHAT_API_URL`, default https://slack.com/api): where chat posts, thread
   * replies and message updates go with the organization's bot token (outbound/chat); tests point it at a fake;
   * `retryDelaysSeconds` replaces the retry schedule of a failed chat call (tests)
   */
  chat?: { apiUrl: string; retryDelaysSeconds?: readonly number[] };
  /**
   * outgoing mail (`VIGIL_SMTP_URL` such as smtp://user:pass@mail.example.com:587, `VIGIL_EMAIL_FROM`): how email
   * notifications are sent (outbound/email/notices.ts); absent, the email channel sends nothing
   */
  email?: { smtpUrl: string; from: string };
}

/** An on/off deployment setting (`on`/`true`, `off`/`false`); undefined when unset; anything else is refused by name. */
export function envFlag(value: string | undefined, name: string): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'on' || value === 'true') return true;
  if (value === 'off' || value === 'false') return false;
  throw new Error(`${name} must be on or off (got ${value})`);
}

/** A numeric deployment setting of at least `min`; undefined when unset; anything else is refused by name. */
export function envNumber(value: string | undefined, name: string, min: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number of at least ${min} (got ${value})`);
  return n;
}
