/** Fills an organization with a row of every family it can make from the descriptors' examples (fuzzing, matrices). */
import { randomBytes } from 'node:crypto';
import type { Row } from '../../engine/descriptor.ts';
import { isWriteOnly } from '../../engine/fields.ts';
import { families } from '../../resources/index.ts';
import { CONFIG, type Client } from './harness.ts';

export interface Seeded {
  /** every write-only value saved (each a fresh random secret) */
  secrets: string[];
  /** the id of one row per collection family that could be created */
  ids: Record<string, string>;
}

/** The example with each write-only field given a fresh secret; undefined when it names rows of other families. */
function withSecrets(fields: Record<string, unknown>, body: Row, secrets: string[]): Row | undefined {
  if (JSON.stringify(body).includes('$ref:')) return undefined;
  const out: Row = { ...body };
  for (const [name, schema] of Object.entries(fields)) {
    if (!isWriteOnly(schema as never) || typeof out[name] !== 'string') continue;
    const secret = `${name}-${randomBytes(12).toString('hex')}`;
    secrets.push(secret);
    out[name] = secret;
  }
  return out;
}

/** Best effort: examples that need other rows first (`$ref:`) are skipped. */
export async function seedOrganization(api: Client): Promise<Seeded> {
  const seeded: Seeded = { secrets: [], ids: {} };
  for (const d of families) {
    if (d.kind === 'singleton') {
      const body = d.examples.update && withSecrets(d.fields, d.examples.update, seeded.secrets);
      if (body) await api.put(`${CONFIG}/${d.name}`, body);
      continue;
    }
    for (const example of d.examples.valid) {
      const body = withSecrets(d.fields, example, seeded.secrets);
      if (!body || !d.operations.includes('create')) continue;
      const made = await api.post(`${CONFIG}/${d.name}`, body);
      if (made.status === 201) seeded.ids[d.name] ??= String(made.body.data.id);
    }
  }
  return seeded;
}
