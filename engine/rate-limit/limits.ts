/**
 * The rate limits of the webhook endpoints and the API (the spec leaves them to us). Each source's body limit is
 * on the source (sources/<segment>.ts).
 *
 * Webhooks: 600 requests per minute per organization and source (10 a second sustained; a storm of single-alert
 * deliveries fits, a runaway sender does not). Over it: 429 `rate_limited` with `Retry-After` in seconds.
 */
export interface RateLimit {
  /** requests allowed per organization and source in one window */
  points: number;
  /** the window, in seconds */
  durationSeconds: number;
}

export const DEFAULT_RATE_LIMIT: RateLimit = { points: 600, durationSeconds: 60 };

/**
 * The configuration API's and agent-tool endpoint's limit per API key or personal token (`VIGIL_API_RATE_LIMIT`):
 * 600 a minute, 10 a second sustained — an agent or a Terraform run with parallel requests fits, a runaway loop
 * does not.
 */
export const DEFAULT_API_RATE_LIMIT: RateLimit = { points: 600, durationSeconds: 60 };
