/**
 * Refuse early: what a saved target (engine/targets.ts) may be, judged before anything is stored. The same
 * address policy as the request-time checks (addresses.ts: the operator's allowed networks, the checks' widening), applied to what the
 * text alone shows: the scheme, credentials in the URL, and a literal address (including the forms the URL
 * parser normalises: 2130706433, 0x7f.1, 0177.0.0.1, [::ffff:169.254.169.254]). Host names are not resolved:
 * the check when the request is made stays authoritative. Messages name the rule, never the value.
 *
 * Plain http: `outbound` targets carry the organization's credentials (API keys, tokens, signatures), so http
 * is accepted only to a literal address the policy lets through that is not public (loopback when allowed,
 * `localhost` included; an allow-listed network); every other host, any name included, needs https. `check` targets are probes of health
 * endpoints, which often speak plain http inside a network: http is accepted for any host the checks' policy
 * lets through. `link` targets are only shown to people: https, no credentials.
 */
import { isIP } from 'node:net';
import type { Target, TargetCheck } from '../../engine/targets.ts';
import { classify, describeRefusal, refusal, type AddressPolicy, type Widening } from './addresses.ts';

export interface TargetPolicies {
  /** the deployment's policy (VIGIL_OUTBOUND_ALLOWED_NETWORKS, VIGIL_OUTBOUND_ALLOW_LOOPBACK) */
  outbound: AddressPolicy;
  /** what checks may reach beyond it (VIGIL_CHECK_ALLOW_LOOPBACK, VIGIL_CHECK_ALLOW_PRIVATE) */
  check: Widening;
}

/** `localhost` and `*.localhost` always name this machine (RFC 6761): judged as the loopback address. */
const LOCALHOST = /^(?:.+\.)?localhost\.?$/i;

/** The literal address a host names (brackets dropped), 127.0.0.1 for localhost, or null for a host name. */
function literalAddress(hostname: string): string | null {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare)) return bare;
  return LOCALHOST.test(bare) ? '127.0.0.1' : null;
}

/** The host a value names: a URL's host, or a bare host with an optional port, normalised by the URL parser. */
function hostOf(value: string, form: Target['form']): { url: URL | null; host: string | null } {
  if (form === 'host') {
    if (isIP(value)) return { url: null, host: value };
    return { url: null, host: URL.parse(`https://${value}/`)?.hostname ?? null };
  }
  const url = URL.parse(value);
  return { url, host: url?.hostname ?? null };
}

function addressRefusalOf(address: string, target: Target, policies: TargetPolicies): string | null {
  const refused = refusal(address, policies.outbound, target.policy === 'check' ? policies.check : {});
  return refused && describeRefusal(refused);
}

/** The checker the engine calls for every target a write sends, under this deployment's policies. */
export function targetRefusal(policies: TargetPolicies): TargetCheck {
  return (value, target) => {
    const { url, host } = hostOf(value, target.form);
    if (target.form === 'url') {
      if (!url) return 'must be an absolute URL';
      if (url.protocol !== 'https:' && url.protocol !== 'http:') return `must be an ${target.policy === 'check' ? 'http or https' : 'https'} URL; other schemes (file:, ftp:, gopher:, data:, …) are refused`;
      if (url.username || url.password) return 'must not carry a user name or password (user:password@); credentials go in the write-only fields';
      if (target.policy === 'link') return url.protocol === 'https:' ? null : 'must be an https URL';
    }
    if (!host) return 'must name a host';
    const address = literalAddress(host);
    const refused = address ? addressRefusalOf(address, target, policies) : null;
    if (refused) return `must not point at an address the service may not reach (${refused})`;
    if (url?.protocol === 'http:' && target.policy === 'outbound' && (!address || classify(address) === null)) {
      return 'must be an https URL; plain http is accepted only to a loopback or allow-listed address this deployment lets the service reach';
    }
    return null;
  };
}
