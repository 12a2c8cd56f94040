/** The HCL writer: every value written parses back with hcl2-parser to the same value; output is deterministic. */
import t from 'tap';
import { Commented, Expression, comment, quote, writeBlock, writeHcl, type HclEntry, type HclValue } from '../../export/hcl-writer.ts';
import { parseHcl } from '../../export/hcl-reader.ts';

/** Writes `value` as the attribute of a block and reads it back. */
function roundTrip(value: HclValue): unknown {
  const text = writeBlock({ type: 'resource', labels: ['vigil_test', 'row'], attributes: { value } });
  const parsed = parseHcl(text) as { resource: { vigil_test: { row: { value: unknown }[] } } };
  return parsed.resource.vigil_test.row[0]!.value;
}

const STRINGS: [string, string][] = [
  ['plain text', 'checkout availability'],
  ['empty', ''],
  ['double quotes', 'say "hi"'],
  ['backslashes', 'C:\\path\\to'],
  ['a trailing backslash', 'ends with \\'],
  ['an interpolation sequence', 'cost ${price}'],
  ['an already escaped interpolation', 'literal $${x} stays'],
  ['a directive sequence', '%{ if x }yes%{ endif }'],
  ['an already escaped directive', '%%{ x }'],
  ['lone dollar and percent signs', '$ 100% $$ %%'],
  ['a dollar before a brace at the end', 'x ${'],
  ['newlines', 'line one\nline two\n'],
  ['CRLF', 'a\r\nb'],
  ['tabs', '\tindented'],
  ['control characters', 'bell \u0007 escape \u001b unit \u001f delete \u007f'],
  ['C1 controls and line separators', 'next \u0085 ls \u2028 ps \u2029'],
  ['accents and CJK', 'café — 東京 — Ærø'],
  ['emoji outside the BMP', 'deploy 🚀 done 🎉'],
  ['right-to-left text', 'שלום عربى'],
  ['a comment marker', '# not a comment // nor this /* nor */'],
  ['HCL keywords', 'null'],
];

t.test('strings round-trip', async (t) => {
  for (const [name, value] of STRINGS) t.equal(roundTrip(value), value, name);
});

t.test('strings are quoted with escapes, Unicode kept as is', async (t) => {
  t.equal(quote('a "b" \\ ${c} %{d}'), '"a \\"b\\" \\\\ $${c} %%{d}"');
  t.equal(quote('x\ny\tz\u0001'), '"x\\ny\\tz\\u0001"');
  t.equal(quote('é🎉'), '"é🎉"');
});

const NUMBERS: [string, number, number][] = [
  ['zero', 0, 0],
  ['negative zero', -0, 0],
  ['a negative integer', -5, -5],
  ['a decimal', 99.9, 99.9],
  ['a small fraction', 0.1, 0.1],
  ['an exponent', 1e21, 1e21],
  ['a negative exponent', -1.5e-7, -1.5e-7],
  ['many digits', 123456789.12345679, 123456789.12345679],
  ['the largest safe integer', Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
];

t.test('numbers, booleans and null round-trip', async (t) => {
  for (const [name, value, expected] of NUMBERS) t.equal(roundTrip(value), expected, name);
  t.equal(roundTrip(true), true);
  t.equal(roundTrip(false), false);
  t.equal(roundTrip(null), null);
  t.throws(() => roundTrip(Number.NaN), /NaN/);
});

const COLLECTIONS: [string, HclValue][] = [
  ['an empty list', []],
  ['a list of scalars', ['a', 1, true, null]],
  ['a long list', Array.from({ length: 30 }, (_, i) => `item number ${i}`)],
  ['nested lists', [[1, 2], [], [['deep']]]],
  ['a list of maps', [{ namespace: 'AWS/ELB', metric_name: 'Latency', dimensions: [{ name: 'LB', value: 'app/x' }] }]],
  ['an empty map', {}],
  ['identifier keys', { investigation: 'model-a', pr_review: 'auto' }],
  ['keys that are not identifiers', { 'a b': 1, 'a.b': 2, '': 3, '1x': 4, 'x-y': 5, 'é': 6, 'say "hi"': 7 }],
  ['keys spelled like keywords', { null: 1, true: 2, false: 3, for: 4, in: 5, if: 6 }],
  ['keys holding template sequences', { '${x}': 'a', '%{y}': 'b' }],
  ['nested maps', { outer: { inner: { leaf: 'x', list: ['y'] }, empty: {} } }],
];

t.test('lists and maps round-trip', async (t) => {
  for (const [name, value] of COLLECTIONS) t.same(roundTrip(value), value, name);
});

t.test('expressions are written bare; commented values keep their value', async (t) => {
  t.equal(roundTrip(new Expression('vigil_slos.checkout_99_9.id')), '${vigil_slos.checkout_99_9.id}');
  t.same(roundTrip([new Expression('vigil_slos.a.id'), new Commented('literal-id', 'not in "this" export\nsecond line')]), ['${vigil_slos.a.id}', 'literal-id']);
  t.same(roundTrip({ a: new Commented(1, 'one') }), { a: 1 });
  t.equal(roundTrip(new Commented('x', 'a comment')), 'x');
  t.throws(() => new Expression('not an expression'), /traversal/);
});

t.test('a comment cannot end its line early', async (t) => {
  t.equal(comment('one\ntwo\rthree\u2028four'), '# one two three four');
  const text = writeHcl(['header\nresource "x" "y" {}'], []);
  t.same(parseHcl(text), {}, 'a newline in a header comment does not open a block');
});

t.test('labels are quoted and escaped; attributes are sorted; blocks follow their sort keys', async (t) => {
  const block = writeBlock({ type: 'resource', labels: ['vigil_x', 'we"ird'], attributes: { zeta: 1, alpha: 2, mid: 3 } });
  t.equal(block, 'resource "vigil_x" "we\\"ird" {\n  alpha = 2\n  mid   = 3\n  zeta  = 1\n}');
  t.equal(writeBlock({ type: 'resource', labels: ['a', 'b'], attributes: {} }), 'resource "a" "b" {}');
  t.throws(() => writeBlock({ type: 'x', attributes: { 'not a name': 1 } }), /attribute name/);

  const entries: HclEntry[] = [
    { sortKey: 'b', block: { type: 'import', attributes: { id: '2', to: new Expression('x.b') } } },
    { sortKey: 'a', block: { type: 'import', attributes: { to: new Expression('x.a'), id: '1' } } },
    { sortKey: 'c', comments: ['(archived) x.c'], block: { type: 'resource', labels: ['x', 'c'], attributes: { v: 1 } }, commentedOut: true },
  ];
  const text = writeHcl(['head'], entries);
  t.equal(text, writeHcl(['head'], [...entries].reverse()), 'the same entries in any order give the same bytes');
  t.ok(text.indexOf('"1"') < text.indexOf('"2"'), 'entries are sorted by key');
  t.match(text, /^# resource "x" "c" \{$/m, 'a commented-out block is kept for people');
  t.same(parseHcl(text), { import: [{ id: '1', to: '${x.a}' }, { id: '2', to: '${x.b}' }] }, 'and invisible to the parser');
});
