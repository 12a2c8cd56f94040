/**
 * A small, pure HCL writer: values, blocks and comments in, text out. Deterministic by construction:
 * the attributes of a body and the keys of a map are written sorted, and a document's entries are written
 * in the order of their sort keys (compared by code unit, never by locale). It knows nothing of Vigil.
 *
 * Layout is exactly what `hclwrite.Format` (`terraform fmt`) makes of it, so formatting an export changes nothing
 * (test/export/hcl-hashicorp.test.ts checks it with HashiCorp's own code): the `=` of consecutive one-line
 * arguments is aligned one column past the longest name, and a run ends at an argument whose value opens several
 * lines (that one keeps a single space, as do the lines after it start a new run); trailing comments of
 * consecutive lines are aligned one column past the longest of those lines.
 */

/** A raw HCL expression such as `vigil_slos.checkout.id`, written without quotes. */
export class Expression {
  readonly text: string;
  constructor(text: string) {
    if (!/^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$/.test(text)) throw new Error(`not a traversal expression: ${JSON.stringify(text)}`);
    this.text = text;
  }
}

/** A value followed by a line comment; it forces the list or map around it onto several lines. */
export class Commented {
  readonly value: HclValue;
  readonly comment: string;
  constructor(value: HclValue, comment: string) {
    this.value = value;
    this.comment = comment;
  }
}

export type HclValue = string | number | boolean | null | Expression | Commented | readonly HclValue[] | HclMap;
export interface HclMap {
  readonly [key: string]: HclValue;
}

export interface HclBlock {
  type: string;
  labels?: readonly string[];
  attributes: Readonly<Record<string, HclValue>>;
  /** comment lines written inside the body, after the attributes */
  comments?: readonly string[];
}

export interface HclEntry {
  /** entries are written in the order of this key (code-unit order) */
  sortKey: string;
  /** comment lines written just before the block */
  comments?: readonly string[];
  block?: HclBlock;
  /** write the block commented out: kept for people, invisible to a parser */
  commentedOut?: boolean;
}

const INDENT = '  ';
const INLINE_LIMIT = 80;
/** Marks where a trailing comment starts until its block is laid out (alignComments). */
const TRAILING = '\u0000';
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** bare words an HCL expression reads as values, so a map key spelled like one is quoted */
const KEYWORDS = new Set(['true', 'false', 'null', 'for', 'in', 'if', 'endif', 'else', 'endfor']);

export const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A quoted HCL string: quotes, backslashes, control characters and template sequences escaped; other Unicode kept. */
export function quote(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const code = text.charCodeAt(i);
    const next = text[i + 1];
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f || (code >= 0x80 && code <= 0x9f) || code === 0x2028 || code === 0x2029) {
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    } else if ((ch === '$' || ch === '%') && next === '{') out += ch + ch;
    else out += ch;
  }
  return `${out}"`;
}

/** A line comment: anything that could end the line early becomes a space. */
export function comment(text: string): string {
  return `# ${text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' ')}`.trimEnd();
}

function number(n: number): string {
  if (!Number.isFinite(n)) throw new Error('HCL has no NaN or infinite numbers');
  return Object.is(n, -0) ? '0' : String(n);
}

function key(name: string): string {
  return IDENTIFIER.test(name) && !KEYWORDS.has(name) ? name : quote(name);
}

function isMap(value: HclValue): value is HclMap {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Expression) && !(value instanceof Commented);
}

function scalar(value: HclValue): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number') return number(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Expression) return value.text;
  return undefined;
}

/** The lines of a value; the first line continues the current one, the others are indented at `depth`. */
function valueLines(value: HclValue, depth: number): string[] {
  const plain = scalar(value);
  if (plain !== undefined) return [plain];
  if (value instanceof Commented) {
    const lines = valueLines(value.value, depth);
    lines[lines.length - 1] += `${TRAILING}${comment(value.comment)}`;
    return lines;
  }
  const pad = INDENT.repeat(depth);
  if (Array.isArray(value)) {
    const items = value as readonly HclValue[];
    if (items.length === 0) return ['[]'];
    const inline = items.map(scalar);
    if (inline.every((s): s is string => s !== undefined)) {
      const text = `[${inline.join(', ')}]`;
      if (text.length <= INLINE_LIMIT) return [text];
    }
    const lines = ['['];
    for (const item of items) {
      const inner = valueLines(item instanceof Commented ? item.value : item, depth + 1);
      inner[0] = `${pad}${INDENT}${inner[0]}`;
      inner[inner.length - 1] += ',';
      if (item instanceof Commented) inner[inner.length - 1] += `${TRAILING}${comment(item.comment)}`;
      lines.push(...inner);
    }
    lines.push(`${pad}]`);
    return lines;
  }
  if (isMap(value)) {
    const names = Object.keys(value).sort(byCodeUnit);
    if (names.length === 0) return ['{}'];
    return ['{', ...bodyLines(names.map((n) => [key(n), value[n]!]), depth + 1), `${pad}}`];
  }
  throw new Error('not an HCL value');
}

/**
 * `name = value` lines of a body or map. As hclwrite aligns them: names padded to one column across each run of
 * consecutive one-line values; a value spanning lines takes one space and ends the run.
 */
function bodyLines(pairs: [string, HclValue][], depth: number): string[] {
  const pad = INDENT.repeat(depth);
  const rendered = pairs.map(([name, value]) => ({ name, lines: valueLines(value, depth) }));
  const lines: string[] = [];
  for (let start = 0; start < rendered.length; ) {
    let end = start;
    while (end < rendered.length && rendered[end]!.lines.length === 1) end++;
    const width = Math.max(0, ...rendered.slice(start, end).map((r) => r.name.length));
    for (const r of rendered.slice(start, end)) lines.push(`${pad}${r.name.padEnd(width)} = ${r.lines[0]}`);
    if (end < rendered.length) {
      const [first, ...rest] = rendered[end]!.lines;
      lines.push(`${pad}${rendered[end]!.name} = ${first}`, ...rest);
    }
    start = end + 1;
  }
  return lines;
}

/** Trailing comments of consecutive lines start one column past the longest of those lines (hclwrite's comment cells). */
function alignComments(lines: string[]): string[] {
  const out = [...lines];
  for (let start = 0; start < out.length; ) {
    if (!out[start]!.includes(TRAILING)) {
      start++;
      continue;
    }
    let end = start;
    while (end < out.length && out[end]!.includes(TRAILING)) end++;
    const width = Math.max(...out.slice(start, end).map((l) => l.slice(0, l.indexOf(TRAILING)).trimEnd().length));
    for (let i = start; i < end; i++) {
      const at = out[i]!.indexOf(TRAILING);
      out[i] = `${out[i]!.slice(0, at).trimEnd().padEnd(width)} ${out[i]!.slice(at + 1)}`;
    }
    start = end;
  }
  return out;
}

/** One block: header, sorted attributes, then its comments. */
export function writeBlock(block: HclBlock): string {
  for (const name of Object.keys(block.attributes)) if (!IDENTIFIER.test(name)) throw new Error(`not an attribute name: ${JSON.stringify(name)}`);
  const header = [block.type, ...(block.labels ?? []).map(quote)].join(' ');
  const names = Object.keys(block.attributes).sort(byCodeUnit);
  const body = [...alignComments(bodyLines(names.map((n) => [n, block.attributes[n]!]), 1)), ...(block.comments ?? []).map((c) => `${INDENT}${comment(c)}`)];
  return body.length ? `${header} {\n${body.join('\n')}\n}` : `${header} {}`;
}

/** A whole file: header comments, then every entry in sort-key order, separated by blank lines. */
export function writeHcl(header: readonly string[], entries: readonly HclEntry[]): string {
  const parts: string[] = [];
  if (header.length) parts.push(header.map(comment).join('\n'));
  for (const entry of [...entries].sort((a, b) => byCodeUnit(a.sortKey, b.sortKey))) {
    const lines = (entry.comments ?? []).map(comment);
    if (entry.block) {
      const text = writeBlock(entry.block);
      lines.push(...(entry.commentedOut ? text.split('\n').map((l) => comment(l)) : [text]));
    }
    if (lines.length) parts.push(lines.join('\n'));
  }
  return parts.length ? `${parts.join('\n\n')}\n` : '';
}
