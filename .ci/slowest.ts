/**
 * The slowest test files of the last run, from what tap's process-info plugin records of each file's process
 * (.tap/processinfo/<uuid>.json: the file as `externalID`, its wall time in ms as `runtime`, start to exit, the
 * module loading included). Processes a test starts itself (`vigil serve`, the CLI) carry a parent and are left out:
 * their time is inside their test file's.
 *
 *   node .ci/slowest.ts [count] [processinfo dir]
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FileTime {
  file: string;
  ms: number;
}

interface ProcessInfo {
  externalID?: string | null;
  parent?: string | null;
  runtime?: number;
}

export function fileTimes(dir: string): FileTime[] {
  if (!existsSync(dir)) return [];
  const times: FileTime[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.json')) continue;
    const info = JSON.parse(readFileSync(join(dir, name), 'utf8')) as ProcessInfo;
    if (info.parent || !info.externalID || typeof info.runtime !== 'number') continue;
    times.push({ file: info.externalID, ms: info.runtime });
  }
  return times.sort((a, b) => b.ms - a.ms);
}

export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

if (import.meta.main) {
  const [count = '10', dir = '.tap/processinfo'] = process.argv.slice(2);
  const times = fileTimes(dir);
  const sum = times.reduce((total, time) => total + time.ms, 0);
  process.stdout.write(`${times.length} files, ${seconds(sum)} summed over the files; the ${count} slowest:\n`);
  for (const { file, ms } of times.slice(0, Number(count))) process.stdout.write(`${seconds(ms).padStart(9)}  ${file}\n`);
}
