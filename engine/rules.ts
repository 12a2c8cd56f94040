/**
 * Cross-field and format rules as values: each carries a description ("must …") that documents itself in
 * OpenAPI and MCP. Families pick from this library instead of writing checks.
 */
import type { Row, Rule } from './descriptor.ts';

const present = (v: unknown) => v !== null && v !== undefined;

export function ianaTimezone(field: string): Rule {
  const accepted = (zone: string) => {
    if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(zone)) return false;
    try {
      new Intl.DateTimeFormat('en', { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  };
  return {
    description: `${field} must be an IANA time zone name`,
    fields: [field],
    check: (row) => (present(row[field]) && !accepted(String(row[field])) ? [{ field, message: 'must be an IANA time zone name, such as Europe/Berlin or UTC' }] : []),
  };
}

/** A later date or time than another field (dates as YYYY-MM-DD compare as text). */
export function after(field: string, earlier: string): Rule {
  return {
    description: `${field} must be after ${earlier}`,
    fields: [field, earlier],
    check: (row) => (present(row[field]) && present(row[earlier]) && String(row[field]) <= String(row[earlier]) ? [{ field, message: `must be after ${earlier}` }] : []),
  };
}

/** A later instant than another field, compared as instants (times written with different offsets compare right). */
export function afterInstant(field: string, earlier: string): Rule {
  const at = (value: unknown) => new Date(value as string).getTime();
  return {
    description: `${field} must be after ${earlier}`,
    fields: [field, earlier],
    check: (row) => (present(row[field]) && present(row[earlier]) && at(row[field]) <= at(row[earlier]) ? [{ field, message: `must be after ${earlier}` }] : []),
  };
}

/** A secret that must not be a URL (URLs belong in another field). */
export function notAUrl(field: string, urlField: string): Rule {
  return {
    description: `${field} must not be a URL (URLs go in ${urlField})`,
    fields: [field],
    check: (row) => (typeof row[field] === 'string' && /^[a-z][a-z0-9+.-]*:\/\//i.test(row[field].trim()) ? [{ field, message: `must not be a URL; URLs go in ${urlField}` }] : []),
  };
}

/** A date written YYYY-MM-DD that is a real calendar day. */
export function calendarDate(field: string): Rule {
  return {
    description: `${field} must be a real calendar date`,
    fields: [field],
    check: (row) => {
      const value = row[field];
      if (!present(value)) return [];
      const d = new Date(`${String(value)}T00:00:00Z`);
      return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value ? [{ field, message: 'must be a real calendar date written YYYY-MM-DD' }] : [];
    },
  };
}

/** Every value in a string map or list is unique. */
export function uniqueItems(field: string): Rule {
  return {
    description: `${field} must not repeat a value`,
    fields: [field],
    check: (row: Row) => {
      const v = row[field];
      return Array.isArray(v) && new Set(v.map((x) => JSON.stringify(x))).size !== v.length ? [{ field, message: 'must not repeat a value' }] : [];
    },
  };
}

/** A field that must be set when another field has a given value (and may not be set otherwise). */
export function requiredWhen(field: string, other: string, value: unknown): Rule {
  return {
    description: `${field} must be set when ${other} is ${String(value)}, and only then`,
    fields: [field, other],
    check: (row) => {
      if (row[other] === value && !present(row[field])) return [{ field, message: `is required when ${other} is ${String(value)}` }];
      if (row[other] !== value && present(row[field])) return [{ field, message: `applies only when ${other} is ${String(value)}` }];
      return [];
    },
  };
}
