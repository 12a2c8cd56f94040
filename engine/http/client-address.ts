/** What a per-client-address limit counts against (the status page's subscribe form, the Events API's fixed path). */

/**
 * The client a request counts against: its address, an IPv6 one by its /64 (one host is handed a whole /64, so a
 * flood rotating inside it is one client).
 */
export function clientOf(ip: string): string {
  const v4 = /^(?:::ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (v4 || !ip.includes(':')) return v4?.[1] ?? ip;
  const [head = '', tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => parseInt(g || '0', 16).toString(16)).join(':')}::/64`;
}
