/**
 * What the first start tells the operator (the minted operator token, the first organization's key and webhook
 * URLs): never the JSON log stream on stdout. It goes to `DATA_DIR/first-start.txt` (mode 0600, the service's user
 * only) when DATA_DIR is a directory, and to stderr: in full when nothing was written or a person watches the
 * terminal, otherwise (a container's logs, a log collector) only a pointer to the file.
 */
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { FirstOrganization } from '../engine/bootstrap.ts';

export const FIRST_START_FILE = 'first-start.txt';

export interface FirstStart {
  mintedOperatorToken?: string;
  firstOrganization?: FirstOrganization | null;
}

/** The lines a person copies from: empty when this start minted nothing. */
export function firstStartLines({ mintedOperatorToken, firstOrganization }: FirstStart): string[] {
  const lines: string[] = [];
  if (mintedOperatorToken) lines.push('', `Operator token (shown once; set VIGIL_ADMIN_TOKEN to choose your own): ${mintedOperatorToken}`);
  if (firstOrganization) {
    lines.push('', `First organization ${firstOrganization.id} (business plan).`, `Its api:admin key (shown once): ${firstOrganization.apiKey}`, 'Its webhook URLs:');
    for (const [source, url] of Object.entries(firstOrganization.webhookUrls)) lines.push(`  ${source}: ${url}`);
  }
  return lines;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Writes the file (when DATA_DIR is a directory) and answers what stderr shows after the "serving at" line. */
export function recordFirstStart(start: FirstStart, dataDir: string, terminal: boolean): string[] {
  const lines = firstStartLines(start);
  if (lines.length === 0) return [];
  if (dataDir === 'memory://' || !isDirectory(dataDir)) return lines;
  const file = resolve(dataDir, FIRST_START_FILE);
  try {
    writeFileSync(file, `${lines.slice(1).join('\n')}\n`, { mode: 0o600 });
    // the mode applies only to a file created now: an older one keeps its own, so set it again
    chmodSync(file, 0o600);
  } catch (error) {
    // a directory this user cannot write to: stderr is then the one place they are shown
    return [...lines, '', `(not written to ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'})`];
  }
  const pointer = `First-start credentials (shown once) are in ${file}, readable only by this user: copy them, then delete the file.`;
  return terminal ? [...lines, '', `(also written to ${file})`] : ['', pointer];
}
