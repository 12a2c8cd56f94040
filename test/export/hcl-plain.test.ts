/**
 * The fast reader of plain-data HCL (export/hcl-plain.ts) against `hcl2-parser`: on the plan fixtures' exports (every
 * family; seed.ts with references, singletons, `${…}` and `%{…}` in values, quotes and newlines) and on hand-written
 * cases it gives exactly what the full parser gives, so a file plans as before; what it does not read is left to the
 * full parser; a syntax error is named by line and column, also deep in a 2 MB file.
 */
import t, { type Test } from 'tap';
import { ConfigFileError, readConfigFile } from '../../export/config-file.ts';
import { readPlainHcl } from '../../export/hcl-plain.ts';
import { parseHcl, tryParse } from '../../export/hcl-reader.ts';
import { families } from '../../resources/index.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { seedEveryFamily } from './every-family.ts';
import { seed } from './seed.ts';

const same = (t: Test, text: string, name: string) => {
  const plain = readPlainHcl(text);
  t.ok('value' in plain, `${name}: read by the plain reader`);
  t.equal(JSON.stringify('value' in plain ? plain.value : plain), JSON.stringify(tryParse(text)), `${name}: what hcl2-parser gives, key order included`);
};

t.test('the fixtures\' exports read exactly as hcl2-parser reads them', async (t) => {
  const vigil = await startVigil();
  t.teardown(() => vigil.close());
  for (const [name, fill] of [['every family', seedEveryFamily], ['seed.ts', seed]] as const) {
    const org = await vigil.organization('business', { compliance: true });
    const key = await org.key();
    await fill(vigil, key);
    const text = (await key.get(`${CONFIG}/export?format=hcl`)).body as string;
    same(t, text, name);
  }
});

t.test('hand-written plain data reads as hcl2-parser reads it', async (t) => {
  const cases: [string, string][] = [
    ['blocks without labels', 'a {\n}\na {\n  x = 1\n}\n'],
    ['labelled blocks merged by type and label', 'r "t" "l" {}\nr "t" "m" {}\nr "u" "l" {\n  y = [1, -2.5e3, "x\\u00e9\\n", null, true]\n}\n'],
    ['a block declared twice', 'r "t" "l" {}\nr "t" "l" {}\n'],
    ['references, escapes and numbers', 'x = foo\ny = a.b.c\nz = "$${q} %%{w} $5 %x"\nw = { "k" = 1, k2: 2, "a b" = {} }\nv = 1e21\nu = 0.1\ns = 12345678901234567890\n'],
    ['empty list and object', 'x = {}\nx2 = []\n'],
    ['unicode escapes, normal form C', 'q = "\\u0041\\U0001F600 e\\u0301 \\t\\"\\\\"\n'],
    ['leading zeros', 'k = 007\n'],
    ['comments and trailing commas, objects in lists', 'l = [\n  {b = 1, a = 2},\n  # c\n  "x", // y\n]\n/* multi\nline */\nz = -0\n'],
    ['keys named like Object.prototype members', '__proto__ = 1\nb "__proto__" {\n  constructor = { __proto__ = 2 }\n}\n'],
    ['CRLF line ends', 'a = 1\r\nb "x" {\r\n  c = "d"\r\n}\r\n'],
  ];
  for (const [name, text] of cases) same(t, text, name);
});

t.test('what is beyond plain data is read by the full parser', async (t) => {
  for (const text of ['a = 1 + 2\n', 'a = "x${y}"\n', 'a = <<EOT\nx\nEOT\n', 'a = f(1)\n', 'a = x[0]\n', 'b { a = 1 }\n', 'a = [for x in y: x]\n']) {
    t.ok('unsupported' in readPlainHcl(text), `${JSON.stringify(text)}: left to hcl2-parser`);
    t.same(parseHcl(text), tryParse(text), 'and read as it reads it');
  }
});

t.test('a syntax error is named by line and column', async (t) => {
  const cases: [string, string, number, number, RegExp][] = [
    ['a newline after =', 'a =\n  1\n', 1, 4, /the value of "a" is missing/],
    ['no newline before }', 'b {\n  a = 1 }\n', 2, 9, /must end with a new line/],
    ['an unknown escape', 'a = "\\q"\n', 1, 6, /"\\q" is not an escape sequence/],
    ['two values', 'a = 1 "x"\n', 1, 7, /must end with a new line/],
    ['a block without a body', 'a "x"\n', 1, 6, /a block needs its body/],
    ['a list without a comma', 'a = [1 2]\n', 1, 8, /expected "," between the items of a list/],
    ['an unterminated string', 'a = "x\n', 1, 5, /string is not closed on its line/],
    ['an unclosed block', 'b {\n', 1, 3, /the "\{" opened here is never closed/],
    ['a stray brace', '}\n', 1, 1, /unexpected "}": nothing is open here/],
    ['an argument set twice', 'a = 1\n  a = 2\n', 2, 3, /argument "a" is set twice \(first on line 1\)/],
  ];
  for (const [name, text, line, column, message] of cases) {
    t.match(readPlainHcl(text), { error: { line, column, message } }, name);
    t.throws(() => parseHcl(text), { line, column, message }, `${name}: parseHcl throws it`);
  }
});

t.test('a syntax error deep in a 2 MB file is named by line and column', async (t) => {
  const block = (i: number) =>
    `resource "vigil_slis" "sli_${i}" {\n  name      = "checkout ${i} \\"p99\\" $\${x}"\n  service   = "checkout"\n  indicator = "availability"\n}\n\nimport {\n  to = vigil_slis.sli_${i}\n  id = "00000000-0000-4000-8000-${String(i).padStart(12, '0')}"\n}\n`;
  const blocks = Array.from({ length: 10_000 }, (_, i) => block(i));
  const good = blocks.join('\n');
  t.ok(good.length > 2_000_000, `${(good.length / 1e6).toFixed(1)} MB`);
  t.equal(readConfigFile(good, families).resources.length, 10_000, 'the file reads');
  const lines = good.split('\n');
  const broken = lines.findIndex((l) => l.includes('"checkout 7000 ')) + 1;
  lines[broken - 1] = lines[broken - 1]!.replace('name      = ', 'name      = = ');
  try {
    readConfigFile(lines.join('\n'), families);
    t.fail('read without error');
  } catch (error) {
    t.ok(error instanceof ConfigFileError);
    t.match(error, { line: broken, column: 15, message: /the value of "name" is missing/ }, `line ${broken}, column 15`);
  }
});
