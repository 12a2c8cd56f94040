/**
 * Anonymization (`ai_settings.anonymization_enabled`): before a prompt leaves, each value of these kinds is
 * replaced with a placeholder, stable within one redactor (the same value gets the same placeholder in every
 * message of a call, and across the agents of one investigation), so the provider can still correlate:
 *
 * - `[SECRET_n]`: bearer/basic credentials, Vigil tokens (`vigil_*`), AWS access key ids, common vendor tokens
 *   (`sk-…`, `ghp_…`, `github_pat_…`, `xox?-…`), JWTs, the value of `password=`, `token=`, `secret:`,
 *   `api_key=`… (quoted or not, JSON included), hex strings of 32+ characters (except the value of a JSON
 *   `commit_sha`, `sha` or `commit` key: commit ids are evidence), and base64-like strings of 40+
 *   characters mixing upper case, lower case and digits;
 * - `[EMAIL_n]`: e-mail addresses;
 * - `[IP_n]`: IPv4 and IPv6 addresses;
 * - `[HOST_n]`: host names — dotted names whose last label is a common public or internal suffix (`HOST_SUFFIXES`;
 *   file names such as `client.ts` are left alone).
 * Secrets are replaced first, then e-mail addresses (so their domain is not a host of its own), IPv6, IPv4, hosts.
 * `restore` puts e-mail addresses, IPs and hosts back into an answer (it stays in the service); secrets stay masked.
 */
import { isIPv6 } from 'node:net';

export type PlaceholderKind = 'SECRET' | 'EMAIL' | 'IP' | 'HOST';

export const HOST_SUFFIXES = [
  'com', 'net', 'org', 'io', 'dev', 'app', 'cloud', 'ai', 'co', 'us', 'uk', 'de', 'fr', 'eu', 'nl', 'be', 'at', 'ch', 'se', 'no', 'dk', 'fi',
  'es', 'it', 'pl', 'jp', 'cn', 'in', 'au', 'ca', 'br', 'info', 'biz', 'tech', 'online', 'site', 'xyz', 'me', 'tv', 'gov', 'edu',
  'local', 'internal', 'lan', 'corp', 'intranet', 'home', 'localdomain', 'svc', 'cluster', 'test', 'example', 'invalid',
] as const;

const KEY_NAMES = 'password|passwd|pwd|secret|client[_-]?secret|token|access[_-]?token|refresh[_-]?token|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|auth';

/** [pattern, the group holding the value to replace (0: the whole match)] */
const SECRET_PATTERNS: [RegExp, number][] = [
  // a credential after the scheme has a digit somewhere (prose such as "basic checks" is left alone)
  [/\b(?:Bearer|bearer|Basic|BEARER)\s+((?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{8,})/g, 1],
  [new RegExp(`\\b(?:${KEY_NAMES})["']?\\s*[=:]\\s*(?:"([^"\\s]+)"|'([^'\\s]+)'|([^\\s"'&,;}\\][]+))`, 'gi'), -1],
  [/\bvigil_[a-z]+_[A-Za-z0-9_-]{8,}/g, 0],
  [/\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g, 0],
  [/\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}/g, 0],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, 0],
  [/\bgithub_pat_[A-Za-z0-9_]{20,}/g, 0],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, 0],
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g, 0],
  // a commit id is evidence, not a secret: the value of a `commit_sha`/`sha`/`commit` key is left alone
  [/(?<!"(?:commit_sha|sha|commit)"\s*:\s*")(?<![A-Za-z0-9])[0-9a-fA-F]{32,}(?![A-Za-z0-9])/g, 0],
];
const BASE64ISH = /(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{40,}={0,2}(?![A-Za-z0-9+/_=-])/g;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}/g;
const IPV6_CANDIDATE = /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f]{0,4})(?![\w:]|\.\d)/g;
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`(?<![\\d.])${OCTET}(?:\\.${OCTET}){3}(?!\\.?\\d)`, 'g');
const HOST = new RegExp(`(?<![\\w.@-])(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+(?:${HOST_SUFFIXES.join('|')})(?![\\w-]|\\.[A-Za-z0-9])`, 'gi');
const PLACEHOLDER = /\[(SECRET|EMAIL|IP|HOST)_(\d+)\]/g;

export class Redactor {
  readonly #byValue = new Map<string, string>();
  readonly #byPlaceholder = new Map<string, string>();
  readonly #counts: Record<PlaceholderKind, number> = { SECRET: 0, EMAIL: 0, IP: 0, HOST: 0 };

  /** how many distinct values were replaced, per kind */
  get counts(): Readonly<Record<PlaceholderKind, number>> {
    return this.#counts;
  }

  #placeholder(kind: PlaceholderKind, value: string): string {
    const key = `${kind}\u0000${kind === 'SECRET' ? value : value.toLowerCase()}`;
    let placeholder = this.#byValue.get(key);
    if (!placeholder) {
      placeholder = `[${kind}_${++this.#counts[kind]}]`;
      this.#byValue.set(key, placeholder);
      this.#byPlaceholder.set(placeholder, value);
    }
    return placeholder;
  }

  redact(text: string): string {
    let out = text;
    for (const [pattern, group] of SECRET_PATTERNS) {
      out = out.replace(pattern, (match: string, ...groups: unknown[]) => {
        const value = group === -1 ? (groups.slice(0, 3).find((g) => typeof g === 'string') as string | undefined) : group === 0 ? match : (groups[group - 1] as string);
        if (!value) return match;
        const at = match.lastIndexOf(value);
        return `${match.slice(0, at)}${this.#placeholder('SECRET', value)}${match.slice(at + value.length)}`;
      });
    }
    out = out.replace(BASE64ISH, (m) => (/[A-Z]/.test(m) && /[a-z]/.test(m) && /\d/.test(m) ? this.#placeholder('SECRET', m) : m));
    out = out.replace(EMAIL, (m) => this.#placeholder('EMAIL', m));
    out = out.replace(IPV6_CANDIDATE, (m) => (isIPv6(m) && (m.match(/[0-9A-Fa-f]/g)?.length ?? 0) >= 2 ? this.#placeholder('IP', m) : m));
    out = out.replace(IPV4, (m) => this.#placeholder('IP', m));
    out = out.replace(HOST, (m) => this.#placeholder('HOST', m));
    return out;
  }

  /** An answer with e-mail, IP and host placeholders put back; secret placeholders stay. */
  restore(text: string): string {
    return text.replace(PLACEHOLDER, (m, kind: string) => (kind === 'SECRET' ? m : (this.#byPlaceholder.get(m) ?? m)));
  }
}
