/**
 * The README's promise, with every family configured: export an organization, apply the file to an empty
 * organization, and its export holds the same blocks with the same arguments — secrets aside (a create that needs
 * a secret the export cannot hold is listed by the plan, with what needs it, and nothing else is missing).
 */
import t from 'tap';
import { applyPlan } from '../../export/apply.ts';
import { checkedPlan } from '../../export/batch.ts';
import { Reference, readConfigFile } from '../../export/config-file.ts';
import { httpConfigApi } from '../../export/remote.ts';
import { families } from '../../resources/index.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { seedEveryFamily } from './every-family.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const EXPORT = `${CONFIG}/export?format=hcl`;

function blocks(text: string): Map<string, unknown> {
  const plain = (v: unknown): unknown => (v instanceof Reference ? v.address : Array.isArray(v) ? v.map(plain) : v);
  return new Map(readConfigFile(text, families).resources.map((r) => [r.address, Object.fromEntries(Object.entries(r.args).map(([k, v]) => [k, plain(v)]))]));
}

/**
 * The export with every stored secret given back (what "secrets aside" means: the person applying supplies them):
 * each `# <field>_wo = <sensitive>` comment becomes `<field>_wo = <the descriptor's example value>`.
 */
function withSecrets(text: string): string {
  let family: (typeof families)[number] | undefined;
  const literal = (v: unknown): string | undefined =>
    typeof v === 'string' ? JSON.stringify(v) : v && typeof v === 'object' && !Array.isArray(v) ? `{ ${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)} = ${JSON.stringify(x)}`).join(', ')} }` : undefined;
  return text.split('\n').map((line) => {
    const block = /^resource "vigil_([a-z0-9_]+)"/.exec(line);
    if (block) family = families.find((f) => f.name === block[1]);
    const secret = /^  # ([a-z0-9_]+)_wo = .*<sensitive>/.exec(line);
    if (!secret || !family) return line;
    const field = secret[1]!;
    const example = [...family.examples.valid, family.examples.update ?? {}].map((b) => b[field]).find((v) => literal(v) !== undefined);
    return example === undefined ? line : `  ${field}_wo = ${literal(example)}`;
  }).join('\n');
}

t.test('export → apply to an empty organization → the same export, secrets aside', async (t) => {
  const source = await vigil.organization('business', { compliance: true });
  await seedEveryFamily(vigil, await source.key());
  const exported = (await (await source.key()).get(EXPORT)).body as string;
  for (const d of families) t.match(exported, `resource "vigil_${d.name}" "`, `the source holds a vigil_${d.name} block`);

  const target = await vigil.organization('business', { compliance: true });
  const key = await target.key();
  const api = httpConfigApi(vigil.url, key.token);
  const bare = await checkedPlan(api, families, readConfigFile(exported, families));
  t.ok(bare.refusals.length > 0, 'without its secrets the plan lists what the service would refuse');
  for (const r of bare.refusals) t.match(r.details.join(' '), /bot_token|routing_key|secret|token|key|password/, `${r.address}: refused for a secret (${r.details.join('; ')})`);
  const file = withSecrets(exported);
  const plan = await checkedPlan(api, families, readConfigFile(file, families));
  t.same(plan.refusals, [], 'with them, the service\'s dry run refuses nothing the plan would send');
  const result = await applyPlan(api, plan);
  t.notOk(result.stopped, result.stopped?.message ?? 'applied in one transaction');

  const notCarried = new Set(plan.skipped.map((s) => s.address));
  for (const s of plan.skipped) {
    t.match(s.reason, /minted by the service|archived|history/, `${s.address} is not carried: ${s.reason}`);
  }
  const before = blocks(exported);
  const after = blocks((await key.get(EXPORT)).body as string);
  for (const [address, args] of before) {
    if (notCarried.has(address)) continue;
    t.same(after.get(address), args, `${address} is reproduced`);
  }
  t.same([...after.keys()].filter((a) => !before.has(a)), [], 'and nothing else is created');

  const again = await checkedPlan(api, families, readConfigFile(file, families));
  t.same(again.actions.map((a) => a.address), [], 'planning the file again changes nothing');
});
