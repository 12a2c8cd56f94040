/** `vigil serve` in a process of its own, as `npm start` runs it: for tests that kill it or run two of it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { COMPILE_CACHE_ENV } from './compile-cache.ts';

const VIGIL = fileURLToPath(new URL('../../bin/vigil.ts', import.meta.url));

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  /** what the process wrote so far: stdout is the JSON log stream, stderr what a person reads */
  output: { stdout: string; stderr: string };
  /** sends the signal and waits for the exit; answers the exit code */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `vigil serve` on a free port with `env` over a quiet default environment; resolves once it serves (its
 * "Vigil is serving at <url>" line, on stderr). `command` runs another build of the CLI (the packed package's).
 */
export async function serveProcess(env: Record<string, string>, command: { node: string; args: string[]; cwd?: string } = { node: process.execPath, args: [VIGIL] }): Promise<ServeProcess> {
  const child = spawn(command.node, [...command.args, 'serve'], {
    env: { ...process.env, ...COMPILE_CACHE_ENV, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', VIGIL_BOOTSTRAP: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: command.cwd,
  });
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk: Buffer) => void (output.stdout += chunk));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const exited = once(child, 'exit');
    child.kill(signal);
    const [code] = await exited;
    return code as number | null;
  };
  // stderr keeps being read (and shown) after the line, so the child never blocks on a full pipe
  const lines = createInterface({ input: child.stderr! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      output.stderr += `${line}\n`;
      process.stderr.write(`${line}\n`);
      const match = /serving at (\S+)/.exec(line);
      if (match) resolve(match[1]!);
    });
    lines.on('close', () => reject(new Error(`vigil serve exited before serving:\n${output.stderr}`)));
  });
  return { child, url, output, stop };
}
