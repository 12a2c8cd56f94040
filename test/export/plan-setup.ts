/**
 * What the `vigil plan` / `vigil apply` tests share (plan.test.ts, plan-apply.test.ts): importing it starts a service
 * for the importing test file, with a seeded organization and its export, and gives the ways to plan against it.
 */
import t from 'tap';
import { readConfigFile, Reference, type ConfigFile } from '../../export/config-file.ts';
import { checkedPlan } from '../../export/batch.ts';
import type { Plan } from '../../export/plan.ts';
import { httpConfigApi } from '../../export/remote.ts';
import { families } from '../../resources/index.ts';
import { runCli, scratchFiles } from '../helpers/cli.ts';
import { CONFIG, startVigil, type Client } from '../helpers/harness.ts';
import { seed } from './seed.ts';

export const vigil = await startVigil();
t.teardown(() => vigil.close());
export const file = await scratchFiles('vigil-plan-');
export const run = (args: string[], env: Record<string, string> = {}) => runCli(args, { VIGIL_URL: vigil.url, ...env });
export const EXPORT = `${CONFIG}/export?format=hcl`;

export const source = await vigil.organization('business', { compliance: true });
export const sourceApi = await source.key();
export const seeded = await seed(vigil, sourceApi);
export const exported = (await sourceApi.get(EXPORT)).body as string;

export const remote = (key: Client & { token: string }) => httpConfigApi(vigil.url, key.token);
export const plan = (key: Client & { token: string }, file: ConfigFile | string, options = {}) =>
  checkedPlan(remote(key), families, typeof file === 'string' ? readConfigFile(file, families) : file, options);
export const addresses = (p: Plan, action?: string) => p.actions.filter((a) => !action || a.action === action).map((a) => a.address);

/** Each block's arguments, references as addresses: what must match between two organizations. */
export function blocks(text: string): Map<string, unknown> {
  const read = readConfigFile(text, families);
  const plain = (v: unknown): unknown => (v instanceof Reference ? v.address : Array.isArray(v) ? v.map(plain) : v);
  return new Map(read.resources.map((r) => [r.address, Object.fromEntries(Object.entries(r.args).map(([k, v]) => [k, plain(v)]))]));
}
