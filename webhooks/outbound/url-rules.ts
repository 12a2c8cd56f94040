/**
 * Refuse early: what a saved target (engine/targets.ts) may be, judged before anything is stored. The same
 * address classification as the request-time checks (addresses.ts, checks/address.ts), applied to what the
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
import { refusal as checkRefusal, type AddressPolicy as CheckAddressPolicy } from '../checks/address.ts';
import { addressRefusal, classifyAddress } from './addresses.ts';

/** The deployment's outbound address policy (VIGIL_OUTBOUND_ALLOW_LOOPBACK, VIGIL_OUTBOUND_ALLOWED_NETWORKS). */
export interface OutboundAddressPolicy {
  allowLoopback: boolean;
  /** CIDRs the operator lets outbound requests reach (self-hosted targets on an internal network) */
  allowedNetworks: string[];
}

export interface TargetPolicies {
  outbound: OutboundAddressPolicy;
  check: CheckAddressPolicy;
}

/** The one place the outbound policy judges an address. */
function outboundRefusal(address: string, policy: OutboundAddressPolicy): string | null {
  // merge point: once addresses.ts takes the policy object (with the allow-list), this becomes addressRefusal(address, policy)
  return addressRefusal(address, policy.allowLoopback);
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
  if (target.policy === 'check') return checkRefusal(address, policies.check);
  return outboundRefusal(address, policies.outbound);
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
    if (refused) return `must not point at an address the service may not reach: ${refused}`;
    if (url?.protocol === 'http:' && target.policy === 'outbound' && (!address || classifyAddress(address) === 'public')) {
      return 'must be an https URL; plain http is accepted only to a loopback or allow-listed address this deployment lets the service reach';
    }
    return null;
  };
}
