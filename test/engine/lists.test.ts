/** Lists: the cap and `truncated`, order, and a throwaway family served without touching the engine. */
import t from 'tap';
import Type from 'typebox';
import { defineFamily } from '../../engine/descriptor.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';

const widgets = defineFamily({
  name: 'widgets',
  description: 'a throwaway family with a small list cap',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  naturalKey: ['name'],
  defaultLimit: 3,
  order: [{ field: 'rank', direction: 'desc' }],
  fields: {
    id: Type.String({ readOnly: true }),
    name: Type.String({ minLength: 1 }),
    rank: Type.Integer({ default: 0 }),
  },
  examples: { valid: [{ name: 'a' }], invalid: [], update: { rank: 2 } },
});

const vigil = await startVigil({ extraFamilies: [widgets] });
t.teardown(() => vigil.close());

t.test('a list past its cap answers the first rows and truncated: true', async (t) => {
  const api = await (await vigil.organization()).key();
  for (const [name, rank] of [['a', 1], ['b', 3], ['c', 2]] as const) await api.post(`${CONFIG}/widgets`, { name, rank });
  const full = await api.get(`${CONFIG}/widgets`);
  t.equal(full.body.truncated, false, 'exactly at the cap is not truncated');
  t.same(full.body.data.map((w: { name: string }) => w.name), ['b', 'c', 'a'], 'in the declared order');
  await api.post(`${CONFIG}/widgets`, { name: 'd', rank: 0 });
  const cut = await api.get(`${CONFIG}/widgets`);
  t.equal(cut.body.truncated, true);
  t.equal(cut.body.data.length, 3);
  t.same(cut.body.data.map((w: { name: string }) => w.name), ['b', 'c', 'a'], 'the cut drops the end of the order');
});
