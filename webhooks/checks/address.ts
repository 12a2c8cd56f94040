/**
 * Which addresses a check may reach, judged by the outbound client's classification (webhooks/outbound/addresses.ts)
 * with the checks' own policy: the families accept internal hosts, so internal networks are allowed unless the
 * operator turns them off; loopback (this machine, the database) only when the operator allows it; link-local
 * (cloud metadata at 169.254.169.254), unspecified, multicast, documentation and reserved ranges never. The guard
 * runs as the socket's `lookup`, so the address checked is the address connected to (a DNS answer cannot change
 * in between).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { classifyAddress, isInternalNetwork } from '../outbound/addresses.ts';

export interface AddressPolicy {
  allowLoopback: boolean;
  allowPrivate: boolean;
}

/** Why `address` may not be reached, or null. */
export function refusal(address: string, policy: AddressPolicy): string | null {
  const verdict = classifyAddress(address);
  if (verdict === 'public') return null;
  if (verdict === 'loopback') return policy.allowLoopback ? null : 'the address is loopback, which this deployment does not let checks reach (VIGIL_CHECK_ALLOW_LOOPBACK)';
  if (isInternalNetwork(address)) return policy.allowPrivate ? null : 'the address is private, which this deployment does not let checks reach (VIGIL_CHECK_ALLOW_PRIVATE)';
  return 'the address is link-local, unspecified or reserved, which checks never reach';
}

export class RefusedAddress extends Error {}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls/http that resolves, then refuses the whole answer when any address is refused (a name
 * that resolves to a public and a loopback address must not be a way in).
 */
export function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    dnsLookup(hostname, { all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      for (const a of addresses) {
        const why = refusal(a.address, policy);
        if (why) return callback(new RefusedAddress(why), []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new RefusedAddress('the name resolved to no address'), []);
      callback(null, first.address, first.family);
    });
  };
}

/** Node does not call `lookup` for an IP literal: such hosts are judged here before connecting. */
export function literalRefusal(host: string, policy: AddressPolicy): string | null {
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  return isIP(bare) ? refusal(bare, policy) : null;
}
