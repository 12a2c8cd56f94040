/**
 * An organization with rows of every family, made from the descriptors' own examples (`$ref:<family>` placeholders
 * resolved to a row made first; the users and rows an example `requires` made before it): what "an export of every
 * family" and "apply reproduces every family" are tested on.
 */
import type { Row } from '../../engine/descriptor.ts';
import { familyOrder } from '../../export/plan.ts';
import { families } from '../../resources/index.ts';
import { CONFIG, type Client, type Vigil } from '../helpers/harness.ts';

export async function seedEveryFamily(vigil: Vigil, api: Client): Promise<void> {
  const made = new Map<string, string>();
  const resolve = async (value: unknown): Promise<unknown> => {
    if (Array.isArray(value)) return Promise.all(value.map(resolve));
    if (typeof value !== 'string' || !value.startsWith('$ref:')) return value;
    const id = made.get(value.slice(5));
    if (!id) throw new Error(`no ${value.slice(5)} row made before it is referred to`);
    return id;
  };
  for (const d of familyOrder(families)) {
    for (const email of d.examples.users ?? []) await vigil.operator.post('/api/admin/v1/users', { email });
    if (d.kind === 'singleton') {
      if (!d.operations.includes('update') || !d.examples.update) continue;
      const res = await api.put(`${CONFIG}/${d.name}`, Object.fromEntries(await Promise.all(Object.entries(d.examples.update).map(async ([k, v]) => [k, await resolve(v)]))));
      if (res.status !== 200) throw new Error(`${d.name}: ${JSON.stringify(res.body)}`);
      continue;
    }
    for (const [i, example] of d.examples.valid.entries()) {
      const body: Row = Object.fromEntries(await Promise.all(Object.entries(example).map(async ([k, v]) => [k, await resolve(v)])));
      // a family whose rows are created by their id (PUT, `id.upsert`) gets one made-up id per example
      const res = d.operations.includes('create') ? await api.post(`${CONFIG}/${d.name}`, body) : d.id?.upsert ? await api.put(`${CONFIG}/${d.name}/example-${i + 1}`, body) : undefined;
      if (res && res.status !== 201 && res.status !== 200) throw new Error(`${d.name}: ${JSON.stringify(res.body)}`);
      if (res) made.set(d.name, made.get(d.name) ?? String(res.body.data.id));
    }
  }
}
