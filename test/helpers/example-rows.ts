/**
 * Rows made over REST from the families' own examples, for tests that walk every family: `$ref:<family>`
 * placeholders become the id of a fresh row of that family (its natural key made unique), and the rows a family's
 * examples need first (`examples.users`, `examples.requires`) are made before it.
 */
import type { FamilyDescriptor, Row } from '../../engine/descriptor.ts';
import { families } from '../../resources/index.ts';
import { CONFIG, type Client, type Vigil } from './harness.ts';

export function exampleRows(vigil: Vigil) {
  let counter = 0;

  async function resolveRefs(api: Client, body: Row): Promise<Row> {
    const one = async (v: unknown) => (typeof v === 'string' && v.startsWith('$ref:') ? createTarget(api, v.slice(5)) : v);
    const out: Row = {};
    for (const [key, value] of Object.entries(body)) out[key] = Array.isArray(value) ? await Promise.all(value.map(one)) : await one(value);
    return out;
  }

  async function createTarget(api: Client, name: string): Promise<string> {
    const target = families.find((f) => f.name === name)!;
    const body = await resolveRefs(api, target.examples.valid[0]!);
    for (const key of target.naturalKey ?? []) if (typeof body[key] === 'string') body[key] = `${body[key]} ref${++counter}`;
    const made = await api.post(`${CONFIG}/${name}`, body);
    if (made.status !== 201) throw new Error(`could not create a ${name} row: ${JSON.stringify(made.body)}`);
    return made.body.data.id;
  }

  /** Rows other families must hold before this family's examples can be created. */
  async function prepareRequired(api: Client, d: FamilyDescriptor): Promise<void> {
    // users are the operator's to create; a second create of the same email is a harmless 409
    for (const email of d.examples.users ?? []) await vigil.operator.post('/api/admin/v1/users', { email });
    for (const name of d.examples.requires ?? []) {
      const target = families.find((f) => f.name === name)!;
      if (target.kind === 'singleton') await api.put(`${CONFIG}/${name}`, target.examples.update);
      else for (const body of target.examples.valid) await api.post(`${CONFIG}/${name}`, await resolveRefs(api, body));
    }
  }

  return { resolveRefs, prepareRequired };
}
