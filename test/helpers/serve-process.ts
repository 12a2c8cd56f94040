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
  /** sends the signal and waits for the exit; answers the exit code */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `vigil serve` on a free port with `env` over a quiet default environment; resolves once it serves. */
export async function serveProcess(env: Record<string, string>): Promise<ServeProcess> {
  const child = spawn(process.execPath, [VIGIL, 'serve'], {
    env: { ...process.env, ...COMPILE_CACHE_ENV, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', VIGIL_BOOTSTRAP: 'off', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const exited = once(child, 'exit');
    child.kill(signal);
    const [code] = await exited;
    return code as number | null;
  };
  for await (const line of createInterface({ input: child.stdout! })) {
    const match = /serving at (\S+)/.exec(line);
    if (match) return { child, url: match[1]!, stop };
  }
  throw new Error('vigil serve exited before serving');
}
