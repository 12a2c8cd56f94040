/**
 * Which addresses a check may reach (a local guard: webhooks/outbound/http.ts did not exist when this was
 * written). The families accept internal hosts, so private ranges are allowed unless the operator turns them
 * off; loopback (this machine, the database) only when the operator allows it; link-local (cloud metadata at
 * 169.254.169.254), unspecified, multicast and reserved ranges never. The guard runs as the socket's `lookup`,
 * so the address checked is the address connected to (a DNS answer cannot change in between).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

export interface AddressPolicy {
  allowLoopback: boolean;
  allowPrivate: boolean;
}

function list(ranges: [string, number, 'ipv4' | 'ipv6'][]): BlockList {
  const b = new BlockList();
  for (const [net, prefix, family] of ranges) b.addSubnet(net, prefix, family);
  return b;
}

const LOOPBACK = list([['127.0.0.0', 8, 'ipv4'], ['::1', 128, 'ipv6']]);
const PRIVATE = list([['10.0.0.0', 8, 'ipv4'], ['172.16.0.0', 12, 'ipv4'], ['192.168.0.0', 16, 'ipv4'], ['100.64.0.0', 10, 'ipv4'], ['fc00::', 7, 'ipv6']]);
const NEVER = list([
  ['0.0.0.0', 8, 'ipv4'], ['169.254.0.0', 16, 'ipv4'], ['224.0.0.0', 4, 'ipv4'], ['240.0.0.0', 4, 'ipv4'],
  ['::', 128, 'ipv6'], ['fe80::', 10, 'ipv6'], ['ff00::', 8, 'ipv6'],
]);

/** Why `address` may not be reached, or null. IPv4-mapped IPv6 addresses are judged as the IPv4 address. */
export function refusal(address: string, policy: AddressPolicy): string | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const ip = mapped ?? address;
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  if (NEVER.check(ip, family)) return 'the address is link-local, unspecified or reserved, which checks never reach';
  if (LOOPBACK.check(ip, family)) return policy.allowLoopback ? null : 'the address is loopback, which this deployment does not let checks reach (VIGIL_CHECK_ALLOW_LOOPBACK)';
  if (PRIVATE.check(ip, family)) return policy.allowPrivate ? null : 'the address is private, which this deployment does not let checks reach (VIGIL_CHECK_ALLOW_PRIVATE)';
  return null;
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
