/**
 * HCL in, plain values out. A file of plain data (every export, and most files people write) is read by
 * export/hcl-plain.ts, fast and with the line and column of a syntax error; a file using more of HCL goes to
 * `hcl2-parser` (HashiCorp's parser compiled to JS, whose answers are untyped and whose syntax errors carry no
 * position; this is its one typed wrapper). When such a file does not parse, the position is found here: a light
 * scan of strings, comments, heredocs and brackets names the line of an unterminated string or an unbalanced
 * bracket; otherwise the statements are bisected (prefixes of the file, then prefixes of the failing block's body
 * are parsed) down to the first one that breaks it.
 */
import { createRequire } from 'node:module';
import { readPlainHcl, type HclObject } from './hcl-plain.ts';

const parser = createRequire(import.meta.url)('hcl2-parser') as { parseToObject(text: string): unknown };

export type { HclObject };

/** Brackets open at once that a file may hold: a configuration needs a handful; thousands are an attack or a mistake. */
export const MAX_HCL_DEPTH = 100;
const TOO_DEEP = `nested too deep: more than ${MAX_HCL_DEPTH} brackets open at once`;

export class HclSyntaxError extends Error {
  /** 1-based line */
  readonly line: number;
  /** 1-based column, where known */
  readonly column: number | undefined;
  constructor(line: number, message: string, column?: number) {
    super(message);
    this.line = line;
    this.column = column;
  }
}

/** The parsed body by `hcl2-parser`, or undefined when the text is not valid HCL (it answers `[null, {}]` or throws). */
export function tryParse(text: string): HclObject | undefined {
  try {
    const answer = parser.parseToObject(text) as [unknown, unknown] | undefined;
    const [value] = answer ?? [];
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as HclObject) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The line where more than MAX_HCL_DEPTH brackets are open at once, or 0. A bracket count that ignores strings and
 * comments can only overcount, so a file it passes is within the limit; one it stops is checked by `scan`.
 */
function tooDeepAt(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 91 || c === 123 || c === 40) {
      if (++depth > MAX_HCL_DEPTH) {
        const error = scan(text).error;
        return error?.message.startsWith(TOO_DEEP) ? error.line : 0;
      }
    } else if (c === 93 || c === 125 || c === 41) depth--;
  }
  return 0;
}

/** Parses a whole file; a syntax error (nesting past MAX_HCL_DEPTH too) is thrown as an HclSyntaxError naming the line. */
export function parseHcl(text: string): HclObject {
  if (text.trim() === '') return {};
  const deep = tooDeepAt(text);
  if (deep) throw new HclSyntaxError(deep, TOO_DEEP);
  const plain = readPlainHcl(text);
  if ('value' in plain) return plain.value;
  if ('error' in plain) throw new HclSyntaxError(plain.error.line, plain.error.message, plain.error.column);
  const parsed = tryParse(text);
  if (parsed) return parsed;
  const { line, message } = locateSyntaxError(text);
  throw new HclSyntaxError(line, message);
}

interface Statement {
  /** 1-based first and last line */
  start: number;
  end: number;
  /** how many brackets were open where it began */
  depth: number;
  /** statements inside its `{ … }` body */
  children: Statement[];
}

interface Scan {
  error?: { line: number; message: string };
  statements: Statement[];
}

const CLOSER: Record<string, string> = { '{': '}', '[': ']', '(': ')', '${': '}' };

/** One pass over the text: strings, templates, comments, heredocs and brackets; statements of top level and of block bodies. */
function scan(text: string): Scan {
  const stack: { open: string; line: number; statement?: Statement }[] = [];
  const top: Statement[] = [];
  let line = 1;
  let current: Statement | undefined;
  let i = 0;
  const fail = (at: number, message: string): Scan => ({ error: { line: at, message }, statements: top });
  /** a statement begins with the first token at top level or directly inside a `{` body */
  const begin = () => {
    if (current) return;
    const enclosing = stack[stack.length - 1];
    if (!enclosing) top.push((current = { start: line, end: line, depth: 0, children: [] }));
    else if (enclosing.open === '{' && enclosing.statement) {
      current = { start: line, end: line, depth: stack.length, children: [] };
      enclosing.statement.children.push(current);
    }
  };
  while (i < text.length) {
    const ch = text[i]!;
    const next = text[i + 1];
    if (stack[stack.length - 1]?.open === '"') {
      if (ch === '\\') i += 2;
      else if (ch === '\n') return fail(stack[stack.length - 1]!.line, 'this string is not closed on its line (a quoted string cannot span lines)');
      else if (ch === '"') (stack.pop(), i++);
      else if ((ch === '$' || ch === '%') && next === ch && text[i + 2] === '{') i += 3;
      else if ((ch === '$' || ch === '%') && next === '{') (stack.push({ open: '${', line }), (i += 2));
      else i++;
      continue;
    }
    if (ch === '\n') {
      if (current && stack.length === current.depth) current = undefined;
      line++;
      i++;
      continue;
    }
    if (ch === ' ' || ch === '\t' || ch === '\r') {
      i++;
      continue;
    }
    if (ch === '#' || (ch === '/' && next === '/')) {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (ch === '/' && next === '*') {
      const close = text.indexOf('*/', i + 2);
      if (close < 0) return fail(line, 'this /* comment is never closed');
      line += (text.slice(i, close).match(/\n/g) ?? []).length;
      i = close + 2;
      continue;
    }
    if (ch === '}' || ch === ']' || ch === ')') {
      const open = stack.pop();
      if (!open) return fail(line, `unexpected "${ch}": nothing is open here`);
      if (CLOSER[open.open] !== ch) return fail(line, `unexpected "${ch}": the "${open.open}" opened on line ${open.line} must be closed first`);
      if (open.open === '{' && open.statement) current = open.statement;
      if (current) current.end = line;
      i++;
      continue;
    }
    begin();
    if (current) current.end = line;
    if (ch === '<' && next === '<') {
      const heredoc = /^<<-?([A-Za-z_][A-Za-z0-9_-]*)[ \t]*\r?\n/.exec(text.slice(i, i + 200));
      if (heredoc) {
        const opened = line;
        const rest = text.slice(i + heredoc[0].length).split('\n');
        const close = rest.findIndex((l) => l.trim() === heredoc[1]);
        if (close < 0) return fail(opened, `the heredoc <<${heredoc[1]} is never closed by a line holding only ${heredoc[1]}`);
        i += heredoc[0].length + rest.slice(0, close).reduce((n, l) => n + l.length + 1, 0) + rest[close]!.length;
        line += close + 1;
        if (current) current.end = line;
        continue;
      }
    }
    if ((ch === '{' || ch === '[' || ch === '(') && stack.length >= MAX_HCL_DEPTH) return fail(line, TOO_DEEP);
    if (ch === '"') stack.push({ open: '"', line });
    else if (ch === '{') {
      stack.push({ open: ch, line, statement: current });
      current = undefined;
    } else if (ch === '[' || ch === '(') stack.push({ open: ch, line, statement: current });
    i++;
  }
  const open = stack.pop();
  if (open) return fail(open.line, open.open === '"' ? 'this string is never closed' : `the "${open.open}" opened here is never closed`);
  return { statements: top };
}

/** The first k in 0..n-1 for which `fails(k)` holds, given that it fails for every k after the first one. */
function firstFailing(n: number, fails: (k: number) => boolean): number {
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (fails(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

const NAME = /^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*=/;

function describe(lines: string[], statement: Statement, siblings: Statement[]): string {
  const first = lines[statement.start - 1] ?? '';
  const name = NAME.exec(first)?.[1];
  if (name) {
    const earlier = siblings.find((s) => s !== statement && s.start < statement.start && NAME.exec(lines[s.start - 1] ?? '')?.[1] === name);
    if (earlier) return `argument "${name}" is set twice (first on line ${earlier.start})`;
    return `the value of "${name}" is not valid HCL`;
  }
  if (/^\s*[A-Za-z_][A-Za-z0-9_-]*(\s+("([^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_-]*))*\s*\{/.test(first)) return 'this block is not valid HCL';
  return 'expected an argument (name = value) or a block here';
}

/** Where a text that does not parse breaks, as precisely as the scan and the bisection can tell. */
export function locateSyntaxError(text: string): { line: number; message: string } {
  const scanned = scan(text);
  if (scanned.error) return scanned.error;
  const lines = text.split('\n');
  const slice = (from: number, to: number) => lines.slice(from - 1, to).join('\n');
  const top = scanned.statements;
  if (top.length === 0) return { line: 1, message: 'this file is not valid HCL' };
  const k = firstFailing(top.length, (n) => tryParse(slice(top[0]!.start, top[n]!.end)) === undefined);
  const failing = top[k]!;
  const body = failing.children;
  if (body.length > 0) {
    const header = slice(failing.start, body[0]!.start - 1);
    const closing = slice(body[body.length - 1]!.end + 1, failing.end);
    if (tryParse(`${header}\n${closing}`) === undefined) return { line: failing.start, message: describe(lines, failing, top.slice(0, k)) };
    const j = firstFailing(body.length, (n) => tryParse(`${header}\n${slice(body[0]!.start, body[n]!.end)}\n${closing}`) === undefined);
    return { line: body[j]!.start, message: describe(lines, body[j]!, body) };
  }
  return { line: failing.start, message: describe(lines, failing, top.slice(0, k)) };
}

const TRAVERSAL = /^\$\{([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)+)\}$/;

/**
 * The traversal a parsed value stands for (`vigil_slos.checkout.id`), or undefined. The parser gives
 * expressions back as "${…}" strings, and a literal "$${…}" the same way, so a caller reads this only where
 * an expression is expected (reference fields, `to`, write-only arguments).
 */
export function traversalOf(value: unknown): string | undefined {
  return typeof value === 'string' ? TRAVERSAL.exec(value)?.[1] : undefined;
}

/** 1-based lines of every `resource "<type>" "<label>"` header and of every `import {` block, in file order. */
export function blockLines(text: string): { resources: Map<string, number[]>; imports: number[] } {
  const resources = new Map<string, number[]>();
  const imports: number[] = [];
  text.split('\n').forEach((raw, index) => {
    const resource = /^\s*resource\s+"([^"]*)"\s+"([^"]*)"/.exec(raw);
    if (resource) {
      const address = `${resource[1]}.${resource[2]}`;
      resources.set(address, [...(resources.get(address) ?? []), index + 1]);
    } else if (/^\s*import\s*\{/.test(raw)) imports.push(index + 1);
  });
  return { resources, imports };
}
