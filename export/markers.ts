/**
 * The comment lines of an export that `vigil plan` reads back (a parser skips comments, so these carry what
 * the file cannot hold as blocks): rows that cannot be created or changed again, and families left out.
 *
 *   # (archived) vigil_status_page_components.old_api id="…": archived at …; …
 *   # (history) vigil_alert_mutes.disk_space id="…": …
 *   # (not exported) vigil_compliance_periods: Compliance is not included in the business plan.
 *
 * and the first line, which names the organization the file was exported from.
 */
export type MarkerKind = 'archived' | 'history' | 'not exported';

export interface Marker {
  kind: MarkerKind;
  /** `vigil_<family>.<label>`, or `vigil_<family>` for a family left out */
  address: string;
  id?: string;
  reason: string;
  /** 1-based line in the file */
  line: number;
}

/** JSON string syntax, with the two line separators JSON leaves raw escaped as well. */
const idText = (id: string) => JSON.stringify(id).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

export function organizationLine(id: string, name: string): string {
  return `Vigil configuration of organization ${idText(name)} (${id}).`;
}

const ORGANIZATION = /^#\s*Vigil configuration of organization ("(?:[^"\\]|\\.)*") \(([^()\s]+)\)\.$/m;

/** The organization named on the first line of an export, if the file has that line. */
export function readOrganization(text: string): { id: string; name: string } | undefined {
  const match = ORGANIZATION.exec(text.slice(0, 2000));
  if (!match) return undefined;
  try {
    return { id: match[2]!, name: JSON.parse(match[1]!) as string };
  } catch {
    return undefined;
  }
}

export function rowMarker(kind: 'archived' | 'history', address: string, id: string, reason: string): string {
  return `(${kind}) ${address} id=${idText(id)}: ${reason}`;
}

export function familyMarker(resourceType: string, reason: string): string {
  return `(not exported) ${resourceType}: ${reason}`;
}

const ROW = /^#\s*\((archived|history)\) (vigil_[a-z0-9_]+\.[A-Za-z_][A-Za-z0-9_-]*) id=("(?:[^"\\]|\\.)*"): (.*)$/;
const FAMILY = /^#\s*\(not exported\) (vigil_[a-z0-9_]+): (.*)$/;

/** Every marker line of a file. */
export function readMarkers(text: string): Marker[] {
  const markers: Marker[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    const row = ROW.exec(line);
    if (row) {
      let id: string;
      try {
        id = JSON.parse(row[3]!) as string;
      } catch {
        return;
      }
      markers.push({ kind: row[1] as MarkerKind, address: row[2]!, id, reason: row[4]!, line: index + 1 });
      return;
    }
    const family = FAMILY.exec(line);
    if (family) markers.push({ kind: 'not exported', address: family[1]!, reason: family[2]!, line: index + 1 });
  });
  return markers;
}
