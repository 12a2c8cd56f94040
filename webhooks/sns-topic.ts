/**
 * What every source that an SNS topic can deliver to does with SNS (the cloud alert sources and the tickets
 * endpoint): confirm a SubscriptionConfirmation by fetching its SubscribeURL, only when that is an https URL on an
 * SNS host (anything else: 400 `invalid_confirmation_address`, never fetched; a failed confirmation: 502); and,
 * when the operator switched signature checking on for the source (organization flag `signing_enabled_sources`
 * naming it, or true where `true` covers the source), accept only messages that carry a valid SNS signature: a payload that did not come through
 * SNS (no envelope) or a bad signature is 401.
 */
import type { Organization } from '../engine/auth/caller.ts';
import type { Services } from '../engine/services.ts';
import type { WebhookAnswer, WebhookRequest } from '../domain/webhook-contract.ts';
import { outboundHttp } from '../outbound/net/http.ts';
import { confirmSubscription, createSnsVerifier, isSnsUrl, type SnsHttp, type SnsVerifier } from './sns-trust.ts';
import { isRecord } from '../engine/payload.ts';

/** The organization flag the operator sets to check signatures; shared with request_signing's switch. */
const SIGNING_SWITCH_FLAG = 'signing_enabled_sources';

/** Whether the operator switched SNS signature checking on for the source; `namedOnly`: `true` does not cover it. */
function snsSignaturesChecked(organization: Organization, source: string, namedOnly = false): boolean {
  const flag = organization.flags[SIGNING_SWITCH_FLAG];
  return (flag === true && !namedOnly) || (Array.isArray(flag) && flag.includes(source));
}

const refuse = (status: number, error: string, message: string, outcome: string): WebhookAnswer => ({ status, body: { error, message }, outcome, detail: message });

export interface SnsTopic {
  /**
   * null when the request may go on; a 401 when the source's signatures are checked and this one fails.
   * `namedOnly`: only a flag naming the source switches checking on (a source also called directly, by scripts
   * and agents, must not be locked to SNS by a flag set for the others).
   */
  check(request: WebhookRequest, source: string, namedOnly?: boolean): Promise<WebhookAnswer | null>;
  /** the answer to a SubscriptionConfirmation; `ok` is the source's usual 200 body */
  confirm(services: Services, subscribeUrl: string | undefined, ok: Record<string, unknown>): Promise<WebhookAnswer>;
}

/** SNS's GETs through the service's guarded outbound client (SNS hosts are public: the policy refuses nothing of theirs). */
function guardedGet(services: Services): SnsHttp {
  return async (url, { timeoutMs }) => {
    const answer = await outboundHttp(services).request({ url, method: 'GET', timeoutMs, maxRedirects: 0, maxResponseBytes: 64 * 1024, purpose: 'amazon sns' });
    return { ok: answer.status >= 200 && answer.status < 300, status: answer.status, text: async () => answer.body.toString('utf8') };
  };
}

/** `http`: how SNS is fetched (tests inject a fake AWS); by default the guarded outbound client of the request's service. */
export function snsTopic(http?: SnsHttp): SnsTopic {
  const verifiers = new WeakMap<Services, SnsVerifier>();
  const injected = http ? createSnsVerifier({ http }) : null;
  const verifierOf = (services: Services) => {
    if (injected) return injected;
    let verifier = verifiers.get(services);
    if (!verifier) verifiers.set(services, (verifier = createSnsVerifier({ http: guardedGet(services) })));
    return verifier;
  };
  return {
    async check(request, source, namedOnly = false) {
      if (!snsSignaturesChecked(request.organization, source, namedOnly)) return null;
      const body = request.body;
      if (!isRecord(body) || typeof body.Type !== 'string') {
        return refuse(401, 'unauthorized', `SNS signature checking is on for ${source}: only messages delivered by an SNS topic subscription, with their signature, are accepted.`, 'refused: signature');
      }
      const verdict = await verifierOf(request.services).verify(body);
      if (verdict.valid) return null;
      return refuse(401, 'unauthorized', `The SNS message signature was not accepted: ${verdict.reason}.`, 'refused: signature');
    },
    async confirm(services, address, ok) {
      if (!address || !isSnsUrl(address)) {
        return refuse(400, 'invalid_confirmation_address', 'The SubscribeURL is not an https address on an SNS host (sns.<region>.amazonaws.com); it was not fetched.', 'refused: invalid confirmation address');
      }
      const confirmed = await confirmSubscription(address, http ?? guardedGet(services));
      if (!confirmed.ok) return refuse(502, 'confirmation_failed', `The SNS subscription could not be confirmed: ${confirmed.reason}. SNS sends the confirmation again; or confirm it in the SNS console.`, 'refused: confirmation failed');
      return { status: 200, body: ok, outcome: 'subscription confirmed' };
    },
  };
}
