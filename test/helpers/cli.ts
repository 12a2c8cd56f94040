/** The `vigil` CLI as a person runs it: a child process, its exit code and output. */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMPILE_CACHE_ENV } from './compile-cache.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/vigil.ts', ...args], { env: { ...process.env, ...COMPILE_CACHE_ENV, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** A scratch folder and a writer of files in it (configuration files for plan and apply). */
export async function scratchFiles(prefix: string) {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return async (name: string, text: string): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };
}

/** Every file of a folder, by name (sorted), as text: what a command wrote, compared whole. */
export async function folderFiles(dir: string): Promise<Record<string, string>> {
  return Object.fromEntries(await Promise.all((await readdir(dir)).sort().map(async (f) => [f, await readFile(join(dir, f), 'utf8')] as const)));
}
