/**
 * The one way a test opens a browser: Debian's Chromium (`apt-get install -y chromium`; `CHROMIUM_PATH` names
 * another binary) driven by playwright-core, kept off the network. Started with only `--no-sandbox`, Chromium
 * reaches for outside hosts at every start (background networking, component updates, sync), which these
 * machines refuse and no test should cause; so every launch carries the flags below and a new empty profile,
 * removed on close.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';

export const CHROMIUM_FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  // with all of the above Debian's Chromium still asked DNS for update.googleapis.com (seen with strace): no name
  // resolves but localhost and 127.0.0.1 (what the tests open), so nothing can leave
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
];

/** The Chromium binary, or undefined when none is installed. */
export function chromiumPath(): string | undefined {
  if (process.env.CHROMIUM_PATH) return existsSync(process.env.CHROMIUM_PATH) ? process.env.CHROMIUM_PATH : undefined;
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Why a browser test cannot run here, or false when it can (for tap's `{ skip }`). */
export const browserSkip = (): string | false =>
  chromiumPath() ? false : 'Chromium is not installed (apt-get install -y chromium, or set CHROMIUM_PATH)';

/** A browser context in a fresh profile directory; `close` ends Chromium and removes the profile. */
export async function openBrowser(options: BrowserContextOptions = {}): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error(browserSkip() as string);
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'vigil-chromium-'));
  // launchPersistentContext passes the profile as --user-data-dir (playwright refuses that flag among args)
  const context = await chromium.launchPersistentContext(profile, { ...options, executablePath, headless: true, args: CHROMIUM_FLAGS }).catch((err: unknown) => {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical violations: of `url` opened in a new tab of `context` (script-enabled), or of the
 * page open in a tab given (a page a POST answered, which a new tab could not open again). `disabled`: rules a page
 * meets another way, said where it is passed.
 */
export async function axeViolations(context: BrowserContext, url: string | Page, disabled: readonly string[] = []): Promise<string[]> {
  const tab = typeof url === 'string' ? await context.newPage() : url;
  try {
    if (typeof url === 'string') await tab.goto(url);
    await tab.evaluate(AXE);
    const rules = Object.fromEntries(disabled.map((id) => [id, { enabled: false }]));
    const results = await tab.evaluate(async (rules) => (globalThis as any).axe.run(document, { resultTypes: ['violations'], rules }), rules);
    // a run that checked nothing (axe not loaded, an empty page) must not pass as clean
    if (!Array.isArray(results.passes) || results.passes.length === 0) throw new Error(`axe checked nothing on ${url}`);
    return (results.violations as { id: string; impact: string; nodes: { target: string[] }[] }[])
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  } finally {
    if (typeof url === 'string') await tab.close();
  }
}


/** axe-core's serious and critical violations in an open tab, every rule on. */
export const axe = (tab: Page): Promise<string[]> => axeViolations(tab.context(), tab);
