/**
 * The outbound address policy: which resolved IP addresses a request the service makes on behalf of an
 * organization (or a payload) may connect to. One decision, used by the one guarded client (http.ts) for every
 * address a name resolves to and every IP literal, before any packet leaves.
 *
 * Refused by default (`classify` names the rule): loopback, unspecified, private (RFC 1918), carrier-grade NAT
 * (100.64/10), link-local, multicast, broadcast, reserved and documentation ranges, unique local (fc00::/7), and
 * every IPv6 address that carries an IPv4 address (IPv4-mapped and -compatible, NAT64 64:ff9b::/96, 6to4
 * 2002::/16, Teredo 2001::/32), judged by the IPv4 address it carries. The local-use NAT64 prefix
 * 64:ff9b:1::/48 is refused whole: where its prefix length puts the IPv4 address is a local choice, and a local
 * translator leads into a local network whatever it carries.
 *
 * Made reachable: networks the operator lists (`VIGIL_OUTBOUND_ALLOWED_NETWORKS`; `VIGIL_OUTBOUND_ALLOW_LOOPBACK`
 * is 127.0.0.0/8 and ::1 on that list), and a caller's widening (checks: loopback and internal networks, by their
 * own settings). Never reachable, whatever is listed: the cloud metadata addresses.
 */
import { BlockList, isIP } from 'node:net';

export type Rule =
  | 'cloud metadata' | 'loopback' | 'unspecified' | 'private' | 'carrier-grade NAT' | 'link-local' | 'multicast' | 'broadcast'
  | 'reserved' | 'documentation' | 'unique local' | 'not an IP address';

/** What a caller may open beyond the operator's list: checks reach loopback and internal networks by their own settings. */
export interface Widening {
  loopback?: boolean;
  /** private (RFC 1918), carrier-grade NAT and unique local networks */
  internal?: boolean;
}

/** The deployment's policy: the networks the operator made reachable. */
export interface AddressPolicy {
  allowed: BlockList;
}

export interface Refusal {
  rule: Rule;
  /** how the judged IPv4 address was carried, when it came inside an IPv6 address */
  via?: string;
}

type Net = [address: string, prefix: number, rule: Rule];

/** Cloud instance metadata and credential endpoints: never reached, even inside a listed network. */
const METADATA: Net[] = [
  ['169.254.169.254', 32, 'cloud metadata'], // AWS, GCP, Azure, OpenStack, DigitalOcean, …
  ['169.254.170.2', 32, 'cloud metadata'], // AWS ECS task credentials
  ['100.100.100.200', 32, 'cloud metadata'], // Alibaba Cloud
  ['fd00:ec2::254', 128, 'cloud metadata'], // AWS over IPv6
];

const V4: Net[] = [
  ['0.0.0.0', 8, 'unspecified'], // "this network"
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'], // 6to4 relay anycast
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'], // benchmarking
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['255.255.255.255', 32, 'broadcast'],
  ['240.0.0.0', 4, 'reserved'],
];

const V6: Net[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b:1::', 48, 'reserved'], // local-use NAT64 (RFC 8215), see above
  ['::', 8, 'reserved'], // the rest of ::/8 (IPv4-mapped and -compatible are judged by their IPv4 address first)
  ['100::', 64, 'reserved'], // discard
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['fc00::', 7, 'unique local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'reserved'], // site-local, deprecated
  ['ff00::', 8, 'multicast'],
];

/**
 * Rules in order, each a BlockList: the first that holds an address of its family names its rule. (A BlockList
 * matches an IPv4 address against IPv6 subnets as IPv4-mapped, so each address meets only its own family's.)
 */
function lists(nets: Net[]): { rule: Rule; type: 'ipv4' | 'ipv6'; list: BlockList }[] {
  return nets.map(([address, prefix, rule]) => {
    const type = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    const list = new BlockList();
    list.addSubnet(address, prefix, type);
    return { rule, type, list };
  });
}
const METADATA_LISTS = lists(METADATA);
const RULES = lists([...V4, ...V6]);
const INTERNAL: ReadonlySet<Rule> = new Set(['private', 'carrier-grade NAT', 'unique local']);

/** The eight 16-bit words of an IPv6 address (already known to be one), a trailing dotted quad included. */
function words(address: string): number[] {
  let text = address.toLowerCase();
  const quad = text.match(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') as [string, string] : [text, null];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((w) => parseInt(w, 16)));
  const first = parse(head);
  if (tail === null) return first;
  const last = parse(tail);
  return [...first, ...Array<number>(8 - first.length - last.length).fill(0), ...last];
}

const v4 = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');

/** The IPv4 addresses an IPv6 address carries, with how; empty when none. Teredo carries two (server and client). */
function embedded(address: string): { ip: string; via: string }[] {
  const w = words(address);
  const zeros = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && w[5] === 0xffff) return [{ ip: v4(w[6]!, w[7]!), via: 'IPv4-mapped' }];
  // IPv4-compatible (deprecated); :: and ::1 are their own rules
  if (zeros(0, 6) && (w[6] !== 0 || w[7]! > 1)) return [{ ip: v4(w[6]!, w[7]!), via: 'IPv4-compatible' }];
  if (w[0] === 0x64 && w[1] === 0xff9b && zeros(2, 6)) return [{ ip: v4(w[6]!, w[7]!), via: 'NAT64' }];
  if (w[0] === 0x2002) return [{ ip: v4(w[1]!, w[2]!), via: '6to4' }];
  if (w[0] === 0x2001 && w[1] === 0) {
    return [{ ip: v4(w[2]!, w[3]!), via: 'Teredo server' }, { ip: v4(w[6]! ^ 0xffff, w[7]! ^ 0xffff), via: 'Teredo client' }];
  }
  return [];
}

function ruleOf(ip: string, type: 'ipv4' | 'ipv6'): Rule | null {
  for (const rules of [METADATA_LISTS, RULES]) for (const r of rules) if (r.type === type && r.list.check(ip, type)) return r.rule;
  return null;
}

/** The address without brackets or a zone (`fe80::1%eth0`). */
const bare = (address: string) => address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');

/**
 * Which rule refuses an address by default, or null for a public one. An IPv6 address carrying IPv4 addresses
 * is refused by the first of them that is refused.
 */
export function classify(address: string): Refusal | null {
  const ip = bare(address);
  const family = isIP(ip);
  if (family === 0) return { rule: 'not an IP address' };
  if (family === 4) {
    const rule = ruleOf(ip, 'ipv4');
    return rule ? { rule } : null;
  }
  const carried = embedded(ip);
  for (const c of carried) {
    const rule = ruleOf(c.ip, 'ipv4');
    if (rule) return { rule, via: c.via };
  }
  // what it carries is public: it is judged as that (the IPv6 ranges of the carrying forms refuse nothing else)
  if (carried.length > 0) return null;
  const rule = ruleOf(ip, 'ipv6');
  return rule ? { rule } : null;
}

/** The address as the allow-list judges it: an IPv6 address carrying one IPv4 address is that IPv4 address. */
function judged(address: string): { ip: string; type: 'ipv4' | 'ipv6' } | null {
  const ip = bare(address);
  const family = isIP(ip);
  if (family === 0) return null;
  if (family === 4) return { ip, type: 'ipv4' };
  const carried = embedded(ip);
  return carried.length === 1 ? { ip: carried[0]!.ip, type: 'ipv4' } : { ip, type: 'ipv6' };
}

/** Why the policy refuses `address` (with the caller's widening), or null when it may be reached. */
export function refusal(address: string, policy: AddressPolicy, widening: Widening = {}): Refusal | null {
  const verdict = classify(address);
  if (!verdict || verdict.rule === 'cloud metadata' || verdict.rule === 'not an IP address') return verdict;
  if (widening.loopback && verdict.rule === 'loopback') return null;
  if (widening.internal && INTERNAL.has(verdict.rule)) return null;
  const j = judged(address);
  // (an IPv4 address also meets listed IPv6 networks as IPv4-mapped: ::ffff:0:0/96 listed lists every IPv4 address)
  return j && policy.allowed.check(j.ip, j.type) ? null : verdict;
}

/** One line for the operator's log: the rule, and how the IPv4 address was carried. */
export const describeRefusal = (r: Refusal) => (r.via ? `${r.rule} (${r.via})` : r.rule);

/**
 * The policy from the operator's settings: `networks` as written in `VIGIL_OUTBOUND_ALLOWED_NETWORKS`
 * (comma-separated CIDRs, IPv4 or IPv6; a bare address is its own /32 or /128), plus loopback when
 * `allowLoopback`. A malformed entry throws an error naming `setting` (never the rest of the value).
 */
export function addressPolicy(networks: readonly string[] = [], allowLoopback = false, setting = 'VIGIL_OUTBOUND_ALLOWED_NETWORKS'): AddressPolicy {
  const allowed = new BlockList();
  for (const entry of networks) {
    const [address = '', prefixText, extra] = entry.trim().split('/');
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
    if (family === 0 || extra !== undefined || !(prefix >= 0 && prefix <= max)) {
      throw new Error(`${setting} must be comma-separated networks such as 10.20.0.0/16 or fd12:3456::/48; "${entry.trim().slice(0, 60)}" is not one`);
    }
    allowed.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  if (allowLoopback) {
    allowed.addSubnet('127.0.0.0', 8, 'ipv4');
    allowed.addAddress('::1', 'ipv6');
  }
  return { allowed };
}

/** `VIGIL_OUTBOUND_ALLOWED_NETWORKS` split into its entries (empty when unset). */
export function networksFromSetting(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
}
