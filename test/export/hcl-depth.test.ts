/** Issue 41: a value nested too deep is reported as too deep, naming the line, not as invalid HCL. */
import t from 'tap';
import { HclSyntaxError, MAX_HCL_DEPTH, parseHcl } from '../../export/hcl-reader.ts';

const nested = (depth: number) => `resource "vigil_teams" "a" {\n  name = "a"\n  tags = ${'['.repeat(depth)}\n1${']'.repeat(depth)}\n}\n`;

t.test('a list nested 2,000 deep is "too deep", at the line where the limit is passed', async (t) => {
  const error = t.throws(() => parseHcl(nested(2000))) as unknown as HclSyntaxError;
  t.ok(error instanceof HclSyntaxError, 'a located error');
  t.match(error.message, /too deep/);
  t.match(error.message, String(MAX_HCL_DEPTH));
  t.equal(error.line, 3, 'the line of the value');
});

t.test('nesting within the limit still parses', async (t) => {
  const parsed = parseHcl(nested(10)) as { resource: { vigil_teams: { a: { tags: unknown }[] } } };
  t.ok(parsed.resource.vigil_teams.a[0]!.tags, 'parsed');
});

t.test('brackets inside strings do not count', async (t) => {
  const text = `resource "vigil_teams" "a" {\n  name = "${'['.repeat(300)}"\n}\n`;
  t.equal((parseHcl(text) as any).resource.vigil_teams.a[0].name, '['.repeat(300));
});
