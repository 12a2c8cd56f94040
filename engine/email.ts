/**
 * The one test of an email address, wherever one is accepted (the operator API's users, team members and teams,
 * notification recipients, status-page subscribers): what mail systems deliver, nothing else. A dot-atom local part
 * of at most 64 characters (RFC 5322 `atext`: no quotes, angle brackets, parentheses, commas, spaces or controls),
 * `@`, and a domain of letters, digits and hyphens with at least one dot; at most 254 characters in all. Quoted
 * local parts, address literals and non-ASCII (SMTPUTF8) addresses are refused: few systems deliver them, and a
 * quoted local part is where markup hides (`"<svg/onload=alert(1)>"@x`).
 */
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';

/** As a JSON Schema `pattern` (ECMA-262), so OpenAPI and the agent tools' input schemas say the same. */
export const EMAIL_PATTERN = `^(?=[^@]{1,64}@)${ATEXT}+(?:\\.${ATEXT}+)*@${LABEL}(?:\\.${LABEL})+$`;
export const EMAIL_MAX_LENGTH = 254;
const EMAIL = new RegExp(EMAIL_PATTERN);

export function isEmail(value: unknown): value is string {
  return typeof value === 'string' && value.length <= EMAIL_MAX_LENGTH && EMAIL.test(value);
}
