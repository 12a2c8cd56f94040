/**
 * A fast, strict reader for the plain-data part of HCL's native syntax: what a Vigil configuration file is made of
 * (blocks with labels, arguments, strings, numbers, bools, null, lists, objects, references such as
 * `vigil_slos.checkout.id`, comments). It reads a 2 MB export in tens of milliseconds where `hcl2-parser` takes
 * seconds, gives back exactly what `hcl2-parser` gives (keys sorted, blocks as arrays, references as "${…}" strings,
 * `$${` read as `${`, strings in NFC), and names the line and column of a syntax error.
 *
 * It reports an error only where HashiCorp's HCL reports one too (a string not closed on its line, a missing
 * value, a missing newline or item separator, an unknown escape, an argument set twice, a bracket never closed or
 * closed twice). Anything beyond plain data (operators, function calls, conditionals, `for` and splat expressions,
 * templates with `${…}` or `%{…}`, heredocs, one-line blocks, nesting deeper than MAX_DEPTH) makes it answer
 * `unsupported`, and the caller hands the file to the full parser (export/hcl-reader.ts).
 */
/** A parsed HCL body: arguments by name, blocks as the full parser nests them. */
export type HclObject = Record<string, unknown>;

export type PlainResult = { value: HclObject } | { error: { line: number; column: number; message: string } } | { unsupported: string };

/** Deeper nesting than this is left to the full parser (and its own limits). */
export const MAX_DEPTH = 64;

class Unsupported extends Error {}
class Syntax extends Error {
  readonly line: number;
  readonly column: number;
  constructor(line: number, column: number, message: string) {
    super(message);
    this.line = line;
    this.column = column;
  }
}

const IDENT = /[\p{ID_Start}_][\p{ID_Continue}-]*/uy;
const NUMBER = /[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
/** characters that may continue an expression in full HCL (operators, traversal, index, call, conditional) */
const CONTINUES = new Set(['+', '-', '*', '/', '%', '=', '!', '<', '>', '&', '|', '?', '.', '[', '(', ':']);
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Sets an own property whatever the key (`__proto__` included), as JSON.parse of the full parser's answer does. */
function put(object: HclObject, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}
/** Keys in order, as the full parser (Go maps written as JSON) gives them. */
function sorted(object: HclObject): HclObject {
  const out: HclObject = {};
  for (const key of Object.keys(object).sort(byCodeUnit)) {
    const value = object[key];
    put(out, key, value !== null && typeof value === 'object' && !Array.isArray(value) ? sorted(value as HclObject) : value);
  }
  return out;
}

class Reader {
  private i = 0;
  private line = 1;
  private lineStart = 0;
  private depth = 0;
  private readonly s: string;
  constructor(text: string) {
    this.s = text;
    if (text.charCodeAt(0) === 0xfeff) this.i = 1;
  }

  private where() {
    return { line: this.line, column: this.i - this.lineStart + 1 };
  }
  private fail(message: string, at = this.where()): never {
    throw new Syntax(at.line, at.column, message);
  }
  private shown(): string {
    const ch = this.s[this.i];
    return ch === undefined ? 'the end of the file' : ch === '\n' ? 'the end of the line' : `"${ch}"`;
  }

  /** Skips blanks and comments; newlines too when `newlines`. A block comment spanning lines where a newline counts is left to the full parser. */
  private skip(newlines: boolean): void {
    const s = this.s;
    for (;;) {
      const ch = s[this.i];
      if (ch === ' ' || ch === '\t' || ch === '\r') this.i++;
      else if (ch === '\n' && newlines) this.newline();
      else if (ch === '#' || (ch === '/' && s[this.i + 1] === '/')) {
        const end = s.indexOf('\n', this.i);
        this.i = end < 0 ? s.length : end;
      } else if (ch === '/' && s[this.i + 1] === '*') {
        const end = s.indexOf('*/', this.i + 2);
        if (end < 0) this.fail('this /* comment is never closed');
        for (let j = this.i; j < end; j++) {
          if (s[j] !== '\n') continue;
          if (!newlines) throw new Unsupported('a comment spanning lines');
          this.line++;
          this.lineStart = j + 1;
        }
        this.i = end + 2;
      } else return;
    }
  }
  private newline(): void {
    this.i++;
    this.line++;
    this.lineStart = this.i;
  }
  private ident(): string | undefined {
    IDENT.lastIndex = this.i;
    const m = IDENT.exec(this.s);
    if (!m) return undefined;
    this.i += m[0].length;
    return m[0];
  }

  body(): HclObject {
    const out: HclObject = {};
    this.statements(out, undefined);
    return sorted(out);
  }

  /** Arguments and blocks up to the `}` of the block opened at `open` (or the end of the file). */
  private statements(out: HclObject, open: { line: number; column: number } | undefined): void {
    const attributes = new Map<string, number>();
    const blocks = new Set<string>();
    for (;;) {
      this.skip(true);
      const ch = this.s[this.i];
      if (ch === undefined) {
        if (open) this.fail('the "{" opened here is never closed', open);
        return;
      }
      if (ch === '}') {
        if (!open) this.fail('unexpected "}": nothing is open here');
        this.i++;
        return;
      }
      const at = this.where();
      const name = this.ident();
      if (name === undefined) this.fail(`expected an argument (name = value) or a block here, found ${this.shown()}`);
      this.skip(false);
      if (this.s[this.i] === '=' && this.s[this.i + 1] !== '=') {
        this.i++;
        const first = attributes.get(name);
        if (first !== undefined) this.fail(`argument "${name}" is set twice (first on line ${first})`, at);
        if (blocks.has(name)) throw new Unsupported('an argument named like a block');
        attributes.set(name, at.line);
        put(out, name, this.expression(`the value of "${name}"`, false));
        this.endOfStatement(`the value of "${name}"`);
        continue;
      }
      if (attributes.has(name)) throw new Unsupported('a block named like an argument');
      blocks.add(name);
      this.block(out, name);
    }
  }

  private block(out: HclObject, type: string): void {
    const labels: string[] = [];
    for (;;) {
      const ch = this.s[this.i];
      if (ch === '"') labels.push(this.string());
      else if (ch === '{') break;
      else {
        const label = this.ident();
        if (label === undefined) this.fail(`a block needs its body, from "{" on this line to "}", found ${this.shown()}`);
        labels.push(label);
      }
      this.skip(false);
    }
    if (++this.depth > MAX_DEPTH) throw new Unsupported('deep nesting');
    const open = this.where();
    this.i++;
    this.skip(false);
    const body: HclObject = {};
    if (this.s[this.i] === '}') this.i++;
    else if (this.s[this.i] === '\n') this.statements(body, open);
    else throw new Unsupported('a one-line block');
    this.depth--;
    this.endOfStatement('a block');
    // hcl2-parser's shape: type → label → … → [body, …]
    let node: unknown = Object.hasOwn(out, type) ? out[type] : undefined;
    if (labels.length === 0) {
      if (node === undefined) put(out, type, (node = []));
      if (!Array.isArray(node)) throw new Unsupported('blocks of one type with different labels');
      node.push(sorted(body));
      return;
    }
    if (node === undefined) put(out, type, (node = {}));
    for (const [n, label] of labels.entries()) {
      if (node === null || typeof node !== 'object' || Array.isArray(node)) throw new Unsupported('blocks of one type with different labels');
      const holder = node as HclObject;
      const last = n === labels.length - 1;
      if (!Object.hasOwn(holder, label)) put(holder, label, last ? [] : {});
      node = holder[label];
    }
    if (!Array.isArray(node)) throw new Unsupported('blocks of one type with different labels');
    node.push(sorted(body));
  }

  /** After an argument or a block: a comment, then a newline or the end of the file. */
  private endOfStatement(what: string): void {
    this.skip(false);
    const ch = this.s[this.i];
    if (ch === undefined) return;
    if (ch === '\n') return this.newline();
    if (CONTINUES.has(ch)) throw new Unsupported('an operator');
    this.fail(`${what} must end with a new line, found ${this.shown()}`);
  }

  /** A value (`what` names it in a message); `nested` inside a list or object, where newlines are blanks. */
  private expression(what: string, nested: boolean): unknown {
    this.skip(nested);
    const s = this.s;
    const ch = s[this.i];
    if (ch === '"') return this.string();
    if (ch === '[') return this.list();
    if (ch === '{') return this.object();
    if ((ch! >= '0' && ch! <= '9') || (ch === '-' && s[this.i + 1]! >= '0' && s[this.i + 1]! <= '9')) {
      const negative = ch === '-';
      NUMBER.lastIndex = negative ? this.i + 1 : this.i;
      const m = NUMBER.exec(s)!;
      this.i = NUMBER.lastIndex;
      const next = s[this.i];
      if (next === '.' || (next !== undefined && /[\p{ID_Continue}]/u.test(next))) throw new Unsupported('an unusual number');
      const value = Number(m[0]);
      return negative ? -value : value;
    }
    const start = this.i;
    const word = this.ident();
    if (word !== undefined) {
      if (word === 'true' || word === 'false' || word === 'null') {
        if (s[this.i] === '.' || s[this.i] === '[') throw new Unsupported('a traversal of a keyword');
        return word === 'null' ? null : word === 'true';
      }
      while (s[this.i] === '.') {
        this.i++;
        if (this.ident() === undefined) throw new Unsupported('an index or splat');
      }
      if (s[this.i] === '[' || s[this.i] === '(' || (word === 'for' && nested)) throw new Unsupported('an index, call or for expression');
      return `\${${s.slice(start, this.i)}}`;
    }
    if (ch === undefined || ch === '\n' || ch === ',' || ch === '=' || ch === '}' || ch === ']' || ch === ')') {
      this.fail(`${what} is missing: expected a string, number, bool, null, list, object or reference, found ${this.shown()}`);
    }
    throw new Unsupported('an expression');
  }

  private string(): string {
    const s = this.s;
    const open = this.where();
    let out = '';
    let from = ++this.i;
    for (;;) {
      const ch = s[this.i];
      if (ch === undefined || ch === '\n') this.fail('this string is not closed on its line (a quoted string cannot span lines)', open);
      if (ch === '"') break;
      if (ch === '\\') {
        out += s.slice(from, this.i);
        const kind = s[this.i + 1];
        if (kind === 'u' || kind === 'U') {
          const length = kind === 'u' ? 4 : 8;
          const hex = s.slice(this.i + 2, this.i + 2 + length);
          if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== length) this.fail(`\\${kind} must be followed by ${length} hexadecimal digits`);
          const code = parseInt(hex, 16);
          if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) throw new Unsupported('an unusual escape');
          out += String.fromCodePoint(code);
          this.i += 2 + length;
        } else {
          const decoded = kind === undefined ? undefined : ESCAPES[kind];
          if (decoded === undefined) this.fail(`"\\${kind ?? ''}" is not an escape sequence HCL knows (\\n, \\r, \\t, \\", \\\\, \\uNNNN, \\UNNNNNNNN)`);
          out += decoded;
          this.i += 2;
        }
        from = this.i;
        continue;
      }
      if ((ch === '$' || ch === '%') && s[this.i + 1] === '{') throw new Unsupported('a template');
      if ((ch === '$' || ch === '%') && s[this.i + 1] === ch && s[this.i + 2] === '{') {
        out += s.slice(from, this.i + 1);
        this.i += 2;
        from = this.i;
        continue;
      }
      this.i++;
    }
    out += s.slice(from, this.i);
    this.i++;
    // HCL gives every string back in Unicode normal form C
    return /[^\u0000-\u007f]/.test(out) ? out.normalize('NFC') : out;
  }

  private list(): unknown[] {
    const open = this.where();
    if (++this.depth > MAX_DEPTH) throw new Unsupported('deep nesting');
    this.i++;
    const items: unknown[] = [];
    for (;;) {
      this.skip(true);
      if (this.s[this.i] === ']') break;
      if (this.s[this.i] === undefined) this.fail('the "[" opened here is never closed', open);
      items.push(this.expression('a list item', true));
      this.skip(true);
      const ch = this.s[this.i];
      if (ch === ',') this.i++;
      else if (ch === ']') break;
      else if (ch === undefined) this.fail('the "[" opened here is never closed', open);
      else if (CONTINUES.has(ch)) throw new Unsupported('an operator');
      else this.fail(`expected "," between the items of a list, or "]", found ${this.shown()}`);
    }
    this.i++;
    this.depth--;
    return items;
  }

  private object(): HclObject {
    const open = this.where();
    if (++this.depth > MAX_DEPTH) throw new Unsupported('deep nesting');
    this.i++;
    const out: HclObject = {};
    for (;;) {
      this.skip(true);
      const ch = this.s[this.i];
      if (ch === '}') break;
      if (ch === undefined) this.fail('the "{" opened here is never closed', open);
      let key: string | undefined;
      if (ch === '"') key = this.string();
      else {
        key = this.ident();
        if (key === undefined || key === 'for') throw new Unsupported('a computed key');
      }
      this.skip(false);
      if ((this.s[this.i] !== '=' && this.s[this.i] !== ':') || this.s[this.i + 1] === '=') throw new Unsupported('a computed key');
      this.i++;
      if (Object.hasOwn(out, key)) throw new Unsupported('a key given twice');
      // a key such as "__proto__" stays a plain key
      put(out, key, this.expression(`the value of "${key}"`, true));
      this.skip(false);
      const next = this.s[this.i];
      if (next === ',') this.i++;
      else if (next === '\n') this.newline();
      else if (next === '}') break;
      else if (next === undefined) this.fail('the "{" opened here is never closed', open);
      else if (CONTINUES.has(next)) throw new Unsupported('an operator');
      else this.fail(`expected "," or a new line between the entries of an object, or "}", found ${this.shown()}`);
    }
    this.i++;
    this.depth--;
    return sorted(out);
  }
}

/** The file read as plain data, its first syntax error with line and column, or `unsupported` for the full parser. */
export function readPlainHcl(text: string): PlainResult {
  try {
    return { value: new Reader(text).body() };
  } catch (error) {
    if (error instanceof Syntax) return { error: { line: error.line, column: error.column, message: error.message } };
    if (error instanceof Unsupported) return { unsupported: error.message };
    throw error;
  }
}
