/**
 * The configuration pages know no family: no file under web/ names one in a string (the check lint:engine runs on
 * engine/), and nothing under web/console/config imports a descriptor — every page comes from the registry. And the
 * form→JSON reader, the pure part, on the shapes the descriptors use.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import Type from 'typebox';
import { nullable } from '../../../engine/descriptor.ts';
import { familyNamesInEngine } from '../../../bin/lint-engine.ts';
import { readFields } from '../../../web/console/config/form-json.ts';

const root = new URL('../../../', import.meta.url).pathname;

t.test('no file under web/ names a family in a string', async (t) => {
  t.same(familyNamesInEngine(join(root, 'web')), []);
});

t.test('web/console/config imports no descriptor: it reads the registry', async (t) => {
  const dir = join(root, 'web/console/config');
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
  t.ok(files.length > 3);
  for (const file of files) t.notMatch(readFileSync(join(dir, file), 'utf8'), /from '[^']*resources\//, file);
});

t.test('the form→JSON reader types values by their schema', async (t) => {
  const fields = {
    name: Type.String({ minLength: 1 }),
    note: nullable(Type.String()),
    size: Type.Integer({ minimum: 1 }),
    ratio: nullable(Type.Number()),
    on: Type.Boolean(),
    maybe: nullable(Type.Boolean()),
    level: Type.Union([Type.Literal('low'), Type.Literal('high')]),
    tags: Type.Array(Type.String()),
    escalation: Type.Array(Type.Object({ team: Type.String(), after: Type.Integer(), page: Type.Boolean() })),
    labels: Type.Record(Type.String(), Type.String()),
    secret: Type.String({ writeOnly: true }),
    window: Type.Object({ start: Type.String(), end: Type.String() }),
  };
  const names = Object.keys(fields);
  const form = {
    name: 'api', note: '', size: '3', ratio: '0.5', '_present[on]': '1', on: 'true', maybe: 'false', level: 'high',
    '_present[tags]': '1', 'tags[0]': 'a', 'tags[1]': '', 'tags[2]': 'c',
    '_present[escalation]': '1', 'escalation[0][team]': 'ops', 'escalation[0][after]': '5', '_present[escalation[0][page]]': '1', 'escalation[0][page]': 'true',
    'escalation[1][team]': '', 'escalation[1][after]': '', '_present[escalation[1][page]]': '1',
    labels: '{"env":"prod"}', secret: '', 'window[start]': '09:00', 'window[end]': '17:00',
  };
  t.same(readFields(fields, names, form, false), {
    name: 'api', note: null, size: 3, ratio: 0.5, on: true, maybe: false, level: 'high', tags: ['a', 'c'],
    escalation: [{ team: 'ops', after: 5, page: true }], labels: { env: 'prod' }, window: { start: '09:00', end: '17:00' },
  }, 'blank secrets and blank list items are left out; the rest typed');
  t.same(readFields(fields, ['size', 'labels', 'on'], { size: 'ten', labels: '{not json', '_present[on]': '1' }, false), { size: 'ten', labels: '{not json', on: false },
    'text that is not its type is kept as typed (validation names the field); an unticked box is false');
  t.same(readFields(fields, ['name', 'tags'], { name: '', '_present[tags]': '1' }, true), { name: '', tags: [] }, 'an edit sends emptied text and lists');
  t.same(readFields(fields, ['name', 'tags'], { name: '', '_present[tags]': '1' }, false), {}, 'a create leaves them out');
});
