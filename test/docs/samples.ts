/**
 * Reading the README's marked blocks and comparing a sample answer written there with what the service answered.
 *
 * A sample answer is a comment under a command: `# <status> <body>`, continued on lines `#   …`. A body that starts
 * with `{` or `[` is JSON in which `"…"` stands for any value (ids, times) and a bare `…` for members or elements
 * left out; an object without `…` must have exactly the fields shown. Any other body is text: the lines printed.
 */

export interface Step {
  /** the shell lines of the step (comments included) */
  commands: string[];
  status: number;
  sample: string;
}

/** The fenced block that follows `<!-- name -->` in a Markdown file. */
export function markedBlock(markdown: string, name: string): string | undefined {
  const match = new RegExp(`<!-- ${name} -->\\s*\\n\`\`\`[a-z]*\\n([\\s\\S]*?)\\n\`\`\``).exec(markdown);
  return match?.[1];
}

const ANSWER = /^# (\d{3})(?: (.*))?$/;
const CONTINUED = /^# {3}(.*)$/;

/** Splits a quick-start block into steps, each ending with its sample answer; lines after the last answer come back in `rest`. */
export function steps(block: string): { steps: Step[]; rest: string[] } {
  const found: Step[] = [];
  let commands: string[] = [];
  let current: Step | undefined;
  for (const line of block.split('\n')) {
    const continued = CONTINUED.exec(line);
    if (current && continued) {
      current.sample += `\n${continued[1]}`;
      continue;
    }
    current = undefined;
    const answer = ANSWER.exec(line);
    if (answer) {
      current = { commands, status: Number(answer[1]), sample: answer[2] ?? '' };
      found.push(current);
      commands = [];
    } else {
      commands.push(line);
    }
  }
  return { steps: found, rest: commands.filter((l) => l.trim() !== '' && !l.startsWith('#')) };
}

const MORE = '\u0000more';
const ANY = '…';

/** A JSON sample with `…` placeholders, as a value `match` reads. */
export function parseSample(text: string): unknown {
  const joined = text.split('\n').map((l) => l.trim()).join('');
  let out = '';
  const stack: string[] = [];
  let inString = false;
  for (let i = 0; i < joined.length; i++) {
    const c = joined[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += joined[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') stack.push(c);
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ANY) {
      // written escaped: a raw NUL is not allowed inside a JSON string
      out += stack.at(-1) === '{' ? '"\\u0000more":true' : '"\\u0000more"';
      continue;
    }
    out += c;
  }
  return JSON.parse(out);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where `actual` differs from the sample `pattern`: one sentence per difference, none when it matches. */
export function differences(actual: unknown, pattern: unknown, path = '$'): string[] {
  if (pattern === ANY) return [];
  if (Array.isArray(pattern)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${JSON.stringify(actual)}`];
    const open = pattern.includes(MORE);
    const shown = pattern.filter((p) => p !== MORE);
    if (open ? actual.length < shown.length : actual.length !== shown.length) {
      return [`${path}: expected ${open ? 'at least ' : ''}${shown.length} elements, got ${actual.length}`];
    }
    return shown.flatMap((p, i) => differences(actual[i], p, `${path}[${i}]`));
  }
  if (isObject(pattern)) {
    if (!isObject(actual)) return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    const open = MORE in pattern;
    const keys = Object.keys(pattern).filter((k) => k !== MORE);
    const found = keys.flatMap((k) => (k in actual ? differences(actual[k], pattern[k], `${path}.${k}`) : [`${path}.${k}: missing`]));
    const extra = open ? [] : Object.keys(actual).filter((k) => !keys.includes(k)).map((k) => `${path}.${k}: not in the sample (add it, or write …)`);
    return [...found, ...extra];
  }
  return Object.is(actual, pattern) ? [] : [`${path}: expected ${JSON.stringify(pattern)}, got ${JSON.stringify(actual)}`];
}

/** Compares one answer body with a step's sample (JSON or text lines). */
export function bodyDifferences(body: string, sample: string): string[] {
  const trimmed = sample.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let actual: unknown;
    try {
      actual = JSON.parse(body);
    } catch {
      return [`the answer is not JSON: ${body.slice(0, 200)}`];
    }
    return differences(actual, parseSample(trimmed));
  }
  const want = trimmed.split('\n').map((l) => l.trim()).filter(Boolean).sort();
  const got = body.split('\n').map((l) => l.trim()).filter(Boolean).sort();
  return JSON.stringify(want) === JSON.stringify(got) ? [] : [`expected the lines ${JSON.stringify(want)}, got ${JSON.stringify(got)}`];
}
