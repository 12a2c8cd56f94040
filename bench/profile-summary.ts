/**
 * `node bench/profile-summary.ts <file.cpuprofile> [top] [last-seconds]`: where a `--cpu-prof` profile of the Vigil
 * child (BENCH_PROFILE=1) spent its CPU: shares of the busy time (idle left out) by package or project folder, by
 * function's own time (self), and by function including what it called (inclusive, each function once per stack).
 * `last-seconds` counts only the profile's last seconds (the measured run, without start-up and seeding).
 */
import { readFile } from 'node:fs/promises';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const [file, topArg, lastArg] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/profile-summary.ts <file.cpuprofile> [top] [last-seconds]');
const top = Number(topArg ?? 25);
const profile = JSON.parse(await readFile(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const total = profile.timeDeltas.reduce((a, b) => a + b, 0);
const from = lastArg ? total - Number(lastArg) * 1e6 : 0;
const self = new Map<number, number>();
let clock = 0;
profile.samples.forEach((id, i) => {
  clock += profile.timeDeltas[i] ?? 0;
  if (clock >= from) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});

const where = (url: string) => {
  if (!url) return '';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg) return pkg;
  if (url.startsWith('node:')) return 'node';
  const local = /\/work\/[^/]+\/([^/]+)\//.exec(url)?.[1] ?? /file:\/\/.*?\/((?:engine|webhooks|resources|export|bin|bench)\/)/.exec(url)?.[1];
  return local ? `${local.replace(/\/$/, '')}/` : url.replace(/^file:\/\//, '');
};
const label = (n: Node) => {
  const f = n.callFrame;
  const file = f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/\/work\/[^/]+\//, '');
  return `${f.functionName || '(anonymous)'} ${file ? `${file}:${f.lineNumber + 1}` : ''}`.trim();
};
const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
const busy = [...self].filter(([id]) => !idle.has(id)).reduce((t, [, us]) => t + us, 0);
const share = (us: number) => `${((us / busy) * 100).toFixed(1).padStart(5)} %`;

const add = (m: Map<string, number>, k: string, us: number) => m.set(k, (m.get(k) ?? 0) + us);
const groups = new Map<string, number>();
const selfByFunction = new Map<string, number>();
for (const [id, us] of self) {
  if (idle.has(id)) continue;
  const n = byId.get(id)!;
  add(groups, where(n.callFrame.url) || n.callFrame.functionName, us);
  add(selfByFunction, label(n), us);
}
// inclusive: every sample counts once for each distinct function on its stack
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const inclusive = new Map<string, number>();
for (const [id, us] of self) {
  if (idle.has(id)) continue;
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const l = label(byId.get(at)!);
    if (!seen.has(l)) (seen.add(l), add(inclusive, l, us));
  }
}
const print = (title: string, m: Map<string, number>) => {
  process.stdout.write(`\n${title}\n`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${share(us)}  ${k}\n`);
};
process.stdout.write(`${file}: ${(busy / 1e6).toFixed(1)} s busy of ${((total - from) / 1e6).toFixed(1)} s${from ? ` (the last ${lastArg} s of ${(total / 1e6).toFixed(1)} s)` : ''}\n`);
print('by package or folder (self time)', groups);
print('by function, self time', selfByFunction);
print('by function, inclusive', inclusive);
