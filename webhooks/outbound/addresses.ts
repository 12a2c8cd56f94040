/**
 * Which network addresses an outbound request may reach. Refused: every private, loopback, link-local,
 * carrier-grade NAT, multicast, documentation and reserved range (IPv4 and IPv6, IPv4-mapped and NAT64 IPv6
 * addresses judged by the IPv4 address they carry). Loopback (127.0.0.0/8, ::1) is allowed only when the
 * operator says so (`VIGIL_OUTBOUND_ALLOW_LOOPBACK=on`: local receivers, tests).
 */
import { BlockList, isIP } from 'node:net';

const V4_BLOCKED: [string, number][] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

const V6_BLOCKED: [string, number][] = [
  ['::', 128], // unspecified
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

const blocked = new BlockList();
for (const [net, prefix] of V4_BLOCKED) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of V6_BLOCKED) blocked.addSubnet(net, prefix, 'ipv6');
const internal = new BlockList();
for (const [net, prefix] of [['10.0.0.0', 8], ['100.64.0.0', 10], ['172.16.0.0', 12], ['192.168.0.0', 16]] as const) internal.addSubnet(net, prefix, 'ipv4');
internal.addSubnet('fc00::', 7, 'ipv6');
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

export type AddressVerdict = 'public' | 'loopback' | 'private';

/** The IPv4 address an IPv6 address carries (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible, NAT64 `64:ff9b::/96`), if any. */
function embeddedV4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = lower.match(/^(?:::ffff:|::|64:ff9b::)(\d{1,3}(?:\.\d{1,3}){3})$/);
  if (dotted) return dotted[1]!;
  const hex = lower.match(/^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/);
  if (!hex) return null;
  const [hi, lo] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** The address as an IP and its family, IPv6 carrying an IPv4 address judged as that IPv4 address; null when not an IP. */
function normalized(address: string): { ip: string; type: 'ipv4' | 'ipv6' } | null {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return null;
  const v4 = family === 6 ? embeddedV4(bare) : null;
  if (v4) return isIP(v4) === 4 ? { ip: v4, type: 'ipv4' } : null;
  return { ip: bare, type: family === 4 ? 'ipv4' : 'ipv6' };
}

/** Whether an IP address is public, loopback or otherwise not to be reached (anything unparseable is `private`). */
export function classifyAddress(address: string): AddressVerdict {
  const n = normalized(address);
  if (!n) return 'private';
  if (loopback.check(n.ip, n.type)) return 'loopback';
  return blocked.check(n.ip, n.type) ? 'private' : 'public';
}

/**
 * Whether a `private` address is on an internal network (10/8, 172.16/12, 192.168/16, carrier-grade NAT 100.64/10,
 * unique local fc00::/7) rather than link-local, multicast, documentation or reserved: internal networks are what
 * a monitoring check may be allowed to reach, the rest is never reached by anything.
 */
export function isInternalNetwork(address: string): boolean {
  const n = normalized(address);
  return n !== null && internal.check(n.ip, n.type);
}

/** Why an address may not be reached under the policy, or null when it may. */
export function addressRefusal(address: string, allowLoopback: boolean): string | null {
  const verdict = classifyAddress(address);
  if (verdict === 'public') return null;
  if (verdict === 'loopback') return allowLoopback ? null : 'the address is a loopback address (the operator allows those with VIGIL_OUTBOUND_ALLOW_LOOPBACK=on)';
  return 'the address is private, link-local or reserved';
}
