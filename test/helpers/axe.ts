/** axe-core in a page: its serious and critical violations (the browser tests assert none). */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export async function axe(tab: Page): Promise<string[]> {
  await tab.evaluate(AXE);
  const results = await tab.evaluate(async () => (globalThis as any).axe.run(document, { resultTypes: ['violations'] }));
  // a run that checked nothing (axe not loaded, an empty page) must not pass as clean
  if (!Array.isArray(results.passes) || results.passes.length === 0) throw new Error('axe checked nothing');
  return (results.violations as { id: string; impact: string; nodes: { target: string[] }[] }[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
