/**
 * A Vigil configuration file read into resources: `resource "vigil_<family>" "<label>"` blocks checked
 * against the descriptors (settable arguments only; `<secret>_wo` and `<secret>_wo_version` for write-only
 * fields; references as `vigil_<family>.<label>.id`), their `import` blocks, and the marker comments of an
 * export. A mistake is thrown as a ConfigFileError naming its line.
 *
 * A write-only value is a string or `var.<name>`; a secret that is an object (outbound_configs.headers,
 * connectors.credentials, …) is written as an HCL object whose keys are written out and whose values are
 * each a string or `var.<name>`. A string holding "${…}" there is refused rather than sent as typed: the
 * parser cannot tell `"Bearer ${var.t}"` (a template, never evaluated here) from an escaped `"$${…}"`.
 */
import type { FamilyDescriptor, Row } from '../engine/descriptor.ts';
import { planFields } from '../engine/fields.ts';
import { familyArguments, fieldArgument, secretArgument } from '../engine/config-arguments.ts';
import { resourceType, secretIsObject } from './export.ts';
import { blockLines, HclSyntaxError, parseHcl, traversalOf, type HclObject } from './hcl-reader.ts';
import { readMarkers, readOrganization, type Marker } from './markers.ts';

export class ConfigFileError extends Error {
  readonly line?: number;
  /** where a syntax error is: its column on `line` */
  readonly column?: number;
  constructor(message: string, line?: number, column?: number) {
    super(message);
    this.line = line;
    this.column = column;
  }
}

/** A reference to another block of the file, resolved to that row's id when the plan is made or applied. */
export class Reference {
  readonly address: string;
  constructor(address: string) {
    this.address = address;
  }
}

/** A value with every Reference in it, at any depth (inside lists and objects too), replaced by what `replace` gives. */
export function mapReferences(value: unknown, replace: (r: Reference) => unknown): unknown {
  if (value instanceof Reference) return replace(value);
  if (Array.isArray(value)) return value.map((v) => mapReferences(v, replace));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapReferences(v, replace)]));
  return value;
}

/** Every Reference in a value, at any depth. */
export function referencesIn(value: unknown): Reference[] {
  const found: Reference[] = [];
  mapReferences(value, (r) => found.push(r));
  return found;
}

const NESTED_TRAVERSAL = /^(vigil_[a-z0-9_]+)\.([A-Za-z_][A-Za-z0-9_-]*)\.id$/;

/**
 * A value whose nested `vigil_<family>.<label>.id` (inside an object or a list of objects, such as an escalation
 * policy's `steps[].targets[].schedule_id`) become References, so a file can name a row it creates in the same apply.
 */
function nestedReferences(value: unknown, top = true): unknown {
  if (Array.isArray(value)) return value.map((v) => nestedReferences(v, top));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, nestedReferences(v, false)]));
  const match = top ? null : NESTED_TRAVERSAL.exec(traversalOf(value) ?? '');
  return match ? new Reference(`${match[1]}.${match[2]}`) : value;
}

/** Where a write-only string comes from: written in the file, or `var.<name>` read from the environment. */
export type SecretText = { literal: string } | { variable: string };

/** Where a write-only value comes from: a string, or for a secret that is an object, one string per key. */
export type SecretSource = SecretText | { entries: Record<string, SecretText> };

export interface FileResource {
  /** `vigil_<family>.<label>` */
  address: string;
  family: FamilyDescriptor;
  label: string;
  line: number;
  /** settable arguments as written; reference fields hold References (or literal ids) */
  args: Row;
  secrets: Record<string, SecretSource>;
  importId?: string;
}

export interface ConfigFile {
  organization?: { id: string; name: string };
  resources: FileResource[];
  markers: Marker[];
  warnings: string[];
}

const isObject = (v: unknown): v is HclObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The line of `name = …` (or of a `name {` block) inside the block that starts at `from`, or the block's own line. */
function argumentLine(lines: string[], from: number, name: string): number {
  const pattern = new RegExp(`^\\s*${name.replace(/[^A-Za-z0-9_-]/g, '')}\\s*[={]`);
  for (let i = from; i < lines.length && i < from + 10_000; i++) {
    if (pattern.test(lines[i]!)) return i + 1;
    if (i > from && /^\s*resource\s/.test(lines[i]!)) break;
  }
  return from + 1;
}

function referenceValue(value: unknown, target: string, where: string, line: number): unknown {
  if (Array.isArray(value)) return value.map((v) => referenceValue(v, target, where, line));
  const traversal = traversalOf(value);
  if (traversal === undefined) return value;
  const match = /^(vigil_[a-z0-9_]+)\.([A-Za-z_][A-Za-z0-9_-]*)\.id$/.exec(traversal);
  if (!match || match[1] !== resourceType(target)) throw new ConfigFileError(`${where} must refer to a ${resourceType(target)} block as ${resourceType(target)}.<label>.id, not ${traversal}.`, line);
  return new Reference(`${match[1]}.${match[2]}`);
}

function secretText(value: unknown, where: string, line: number): SecretText {
  const traversal = traversalOf(value);
  if (traversal !== undefined) {
    const variable = /^var\.([A-Za-z_][A-Za-z0-9_-]*)$/.exec(traversal);
    if (!variable) throw new ConfigFileError(`${where} must be a string or var.<name>, not ${traversal}.`, line);
    return { variable: variable[1]! };
  }
  if (typeof value !== 'string') throw new ConfigFileError(`${where} must be a string or var.<name>.`, line);
  return { literal: value };
}

const OBJECT_FORM = '{ key = "value" or var.<name>, … }';

/** `<secret>_wo`: a string or var.<name>, or for a secret that is an object, an object of those. */
function secretSource(value: unknown, secret: string, isObject: boolean, where: string, line: number): SecretSource {
  if (!isObject) {
    if (value !== null && typeof value === 'object') throw new ConfigFileError(`${where} must be a string or var.<name>: ${secret} is not an object.`, line);
    return secretText(value, where, line);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const traversal = traversalOf(value);
    const what = traversal ?? (Array.isArray(value) ? 'a list or a block' : typeof value === 'string' ? 'a string' : JSON.stringify(value));
    throw new ConfigFileError(`${where} must be an object, ${OBJECT_FORM} (${secret} is one), not ${what}.`, line);
  }
  const entries: Record<string, SecretText> = {};
  for (const [key, entry] of Object.entries(value as HclObject)) {
    if (key.includes('${')) throw new ConfigFileError(`${where}: a key must be written out, not computed (${key}).`, line);
    const at = `${where}: the value of "${key}"`;
    if (typeof entry === 'string' && traversalOf(entry) === undefined && entry.includes('${')) {
      throw new ConfigFileError(`${at} holds an interpolation ("\${…}"), which is never evaluated here: put the whole value in a variable and write var.<name>.`, line);
    }
    entries[key] = secretText(entry, at, line);
  }
  return { entries };
}

/** Where the blocks of a file are, for messages and order: the lines of an HCL file, the block order of a JSON one. */
interface Positions {
  resources: Map<string, number[]>;
  imports: number[];
  argument(blockLine: number, name: string): number;
}

function readResource(family: FamilyDescriptor, label: string, body: HclObject, line: number, positions: Positions): FileResource {
  const address = `${resourceType(family.name)}.${label}`;
  const { secrets } = planFields(family);
  const fieldOf = new Map(familyArguments(family).map((a) => [a.argument, a.field]));
  const resource: FileResource = { address, family, label, line, args: {}, secrets: {} };
  for (const [name, value] of Object.entries(body)) {
    const at = positions.argument(line, name);
    const field = fieldOf.get(name);
    if (field === undefined) {
      const why = secrets.includes(name)
        ? `is write-only: set it with ${secretArgument(name)}`
        : fieldArgument(name) !== name && fieldOf.has(fieldArgument(name))
          ? `is reserved by Terraform: write it as ${fieldArgument(name)}`
          : name in family.fields ? 'is read-only' : `is not a field of ${family.name}`;
      throw new ConfigFileError(`${address}: argument "${name}" ${why}.`, at);
    }
    if (secrets.includes(field)) {
      if (name === secretArgument(field)) resource.secrets[field] = secretSource(value, field, secretIsObject(family, field), `${address}: ${name}`, at);
      continue;
    }
    const ref = family.references?.[field];
    resource.args[field] = ref ? referenceValue(value, ref.family, `${address}: ${name}`, at) : nestedReferences(value);
  }
  return resource;
}

/**
 * Reads a file. `lenient` (for the service's own export) skips families this client does not know instead of
 * refusing them.
 */
export function readConfigFile(text: string, families: readonly FamilyDescriptor[], options: { lenient?: boolean } = {}): ConfigFile {
  let parsed: HclObject;
  try {
    parsed = parseHcl(text);
  } catch (error) {
    if (error instanceof HclSyntaxError) throw new ConfigFileError(error.message, error.line, error.column);
    throw error;
  }
  const lines = text.split('\n');
  const where = blockLines(text);
  const positions: Positions = { ...where, argument: (line, name) => argumentLine(lines, line - 1, name) };
  return readParsed(parsed, positions, { organization: readOrganization(text), markers: readMarkers(text) }, families, options);
}

/** `$${` and `%%{` as the HCL parser gives them back (`${`, `%{`), so both syntaxes read the same. */
function unescaped(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/([$%])\1\{/g, '$1{');
  if (Array.isArray(value)) return value.map(unescaped);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [unescaped(k) as string, unescaped(v)]));
  return value;
}

/**
 * Reads the service's export in Terraform's JSON configuration syntax (GET /export?format=json, export/json-config.ts)
 * into what readConfigFile gives for its HCL file; a block's "line" is its place in the document.
 */
export function readJsonConfig(text: string, families: readonly FamilyDescriptor[], options: { lenient?: boolean } = {}): ConfigFile {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new ConfigFileError('the configuration is not valid JSON.');
  }
  if (!isObject(document)) throw new ConfigFileError('the configuration must be a JSON object.');
  const comments = (Array.isArray(document['//']) ? document['//'] : []).filter((c): c is string => typeof c === 'string').map((c) => `# ${c}`).join('\n');
  const resources = new Map<string, number[]>();
  // built with fromEntries: a label such as "__proto__" stays a key
  const resource: HclObject = Object.fromEntries(Object.entries(isObject(document.resource) ? document.resource : {}).map(([type, labelled]) => [
    type,
    Object.fromEntries(Object.entries(isObject(labelled) ? labelled : {}).map(([label, body]) => {
      resources.set(`${type}.${label}`, [resources.size + 1]);
      return [label, [unescaped(body)]];
    })),
  ]));
  const imports = (Array.isArray(document.import) ? document.import : []).map((block: unknown) =>
    isObject(block) && typeof block.to === 'string' ? { ...block, to: `\${${block.to}}` } : block);
  const positions: Positions = { resources, imports: imports.map((_: unknown, i: number) => resources.size + i + 1), argument: (line) => line };
  return readParsed({ resource, import: imports }, positions, { organization: readOrganization(comments), markers: readMarkers(comments) }, families, options);
}

function readParsed(
  parsed: HclObject, where: Positions, comments: { organization?: ConfigFile['organization']; markers: Marker[] },
  families: readonly FamilyDescriptor[], options: { lenient?: boolean },
): ConfigFile {
  const byType = new Map(families.map((f) => [resourceType(f.name), f]));
  const file: ConfigFile = { organization: comments.organization, resources: [], markers: comments.markers, warnings: [] };
  const resources = isObject(parsed.resource) ? parsed.resource : {};
  for (const [type, labelled] of Object.entries(resources)) {
    const family = byType.get(type);
    const firstLine = [...where.resources].find(([address]) => address.startsWith(`${type}.`))?.[1][0];
    if (!family) {
      if (type.startsWith('vigil_') && !options.lenient) throw new ConfigFileError(`resource type ${type} is not a Vigil family this client knows.`, firstLine);
      if (!type.startsWith('vigil_')) file.warnings.push(`ignored: resource type ${type} is not Vigil's`);
      continue;
    }
    for (const [label, bodies] of Object.entries(isObject(labelled) ? labelled : {})) {
      const lineList = where.resources.get(`${type}.${label}`) ?? [];
      const blocks = Array.isArray(bodies) ? bodies : [bodies];
      if (blocks.length > 1) throw new ConfigFileError(`${type}.${label} is declared more than once.`, lineList[1]);
      if (!isObject(blocks[0])) throw new ConfigFileError(`${type}.${label} is not a block.`, lineList[0]);
      file.resources.push(readResource(family, label, blocks[0], lineList[0] ?? 1, where));
    }
  }
  const byAddress = new Map(file.resources.map((r) => [r.address, r]));
  const imports = Array.isArray(parsed.import) ? parsed.import : [];
  imports.forEach((block, index) => {
    const line = where.imports[index];
    if (!isObject(block)) throw new ConfigFileError('an import block must hold to and id.', line);
    const to = traversalOf(block.to);
    if (!to) throw new ConfigFileError('import: to must name a resource block, such as vigil_slos.checkout.', line);
    const resource = byAddress.get(to);
    if (!resource) {
      if (!to.startsWith('vigil_') || (options.lenient && !byType.has(to.split('.')[0]!))) return;
      throw new ConfigFileError(`import: to names ${to}, which has no resource block in this file.`, line);
    }
    if (typeof block.id !== 'string' || block.id === '') throw new ConfigFileError(`import of ${to}: id must be a non-empty string.`, line);
    if (resource.importId !== undefined) throw new ConfigFileError(`${to} has more than one import block.`, line);
    resource.importId = block.id;
  });
  for (const resource of file.resources) {
    for (const value of referencesIn(resource.args)) {
      if (!byAddress.has(value.address) && !options.lenient) {
        throw new ConfigFileError(`${resource.address} refers to ${value.address}, which has no resource block in this file.`, resource.line);
      }
    }
  }
  file.resources.sort((a, b) => a.line - b.line);
  return file;
}
