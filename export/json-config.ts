/**
 * The export in Terraform's JSON configuration syntax (GET /export?format=json): the same resource and import
 * blocks as the HCL file, as data, so `vigil plan` reads the organization's current configuration with
 * `JSON.parse` instead of parsing its own HCL back (5,000 rows: milliseconds instead of seconds).
 *
 * As in that syntax, a string is a template: a reference is `"${vigil_<family>.<label>.id}"`, and a literal
 * `${` or `%{` is escaped `$${` / `%%{`. `import` blocks give `to` as the address. What the HCL file holds as
 * comments (the organization line, families left out, archived and history rows) are the top-level `"//"` lines,
 * the one property the syntax sets aside for comments, each line as the HCL file writes it; rows commented out
 * there are not blocks here, and a stored secret's comment is left out.
 */
import { byCodeUnit, Commented, Expression, type HclEntry, type HclValue } from './hcl-writer.ts';

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

const literalTemplates = (text: string) => text.replace(/([$%])\{/g, '$1$1{');

function jsonValue(value: HclValue): Json {
  if (value instanceof Expression) return `\${${value.text}}`;
  if (value instanceof Commented) return jsonValue(value.value);
  if (typeof value === 'string') return literalTemplates(value);
  if (Array.isArray(value)) return value.map(jsonValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, HclValue>).map(([k, v]) => [literalTemplates(k), jsonValue(v)]));
  }
  return value as Json;
}

export function writeJsonConfig(header: readonly string[], entries: readonly HclEntry[]): string {
  const comments = [...header];
  const resource: Record<string, Record<string, Record<string, Json>>> = {};
  const imports: { to: string; id: Json }[] = [];
  for (const entry of [...entries].sort((a, b) => byCodeUnit(a.sortKey, b.sortKey))) {
    comments.push(...(entry.comments ?? []));
    const block = entry.block;
    if (!block || entry.commentedOut) continue;
    if (block.type === 'import') {
      imports.push({ to: (block.attributes.to as Expression).text, id: jsonValue(block.attributes.id!) });
      continue;
    }
    const [type, label] = block.labels as [string, string];
    const attributes = Object.keys(block.attributes).sort(byCodeUnit).map((name) => [name, jsonValue(block.attributes[name]!)]);
    (resource[type] ??= {})[label] = Object.fromEntries(attributes);
  }
  return `${JSON.stringify({ '//': comments, resource, import: imports })}\n`;
}
