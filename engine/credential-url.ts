/**
 * URLs that carry a credential (a chat incoming webhook `…/services/T…/B…/<secret>`, a token in a query parameter,
 * `user:password@`). A URL field that may carry one declares it (`'x-credential-url': true` on its schema, or
 * `credentialUrl()` around it); the engine then masks the credential's parts for anyone who cannot write the family,
 * on every read (REST, agent tools, the console's pages, which read through the same operations), and in every export.
 * The rest of the URL stays readable, so a viewer still sees where deliveries go.
 */
import type { TSchema } from 'typebox';

const CREDENTIAL_URL = 'x-credential-url';
export const MASK = '••••';

/** Marks a URL field's schema as one that may carry a credential. */
export function credentialUrl<S extends TSchema>(schema: S): S {
  return { ...schema, [CREDENTIAL_URL]: true } as S;
}

const isCredentialUrl = (schema: unknown): boolean => (schema as Record<string, unknown> | undefined)?.[CREDENTIAL_URL] === true;

/** A query parameter named like a credential. */
const SECRET_NAME = /token|key|secret|sig|signature|password|passwd|pwd|auth|credential|code|session/i;
/** A path segment or value that looks generated rather than chosen: long, of a token's alphabet, letters and digits. */
const looksSecret = (value: string) => value.length >= 16 && /^[A-Za-z0-9_\-.~%]+$/.test(value) && /[0-9]/.test(value) && /[A-Za-z]/.test(value);

/** The URL with its userinfo, credential-like query values and token-like path segments masked; unchanged otherwise. */
export function maskUrlCredentials(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return MASK;
  }
  const userinfo = url.username || url.password ? `${MASK}@` : '';
  const path = url.pathname.split('/').map((segment) => (looksSecret(segment) ? MASK : segment)).join('/');
  const query = [...url.searchParams].map(([name, v]) => `${encodeURIComponent(name)}=${SECRET_NAME.test(name) || looksSecret(v) ? MASK : encodeURIComponent(v)}`);
  return `${url.protocol}//${userinfo}${url.host}${path}${query.length ? `?${query.join('&')}` : ''}`;
}

/** A field's value with every credential URL in it masked: the field itself, or an object's declared properties. */
export function maskCredentialFields(schema: TSchema, value: unknown): unknown {
  if (typeof value === 'string') return isCredentialUrl(schema) ? maskUrlCredentials(value) : value;
  const properties = (schema as { properties?: Record<string, TSchema> }).properties;
  if (!properties || !value || typeof value !== 'object' || Array.isArray(value)) return value;
  const flagged = Object.entries(properties).filter(([, s]) => isCredentialUrl(s));
  if (!flagged.length) return value;
  const out = { ...(value as Record<string, unknown>) };
  for (const [name, s] of flagged) if (typeof out[name] === 'string') out[name] = maskCredentialFields(s, out[name]);
  return out;
}
