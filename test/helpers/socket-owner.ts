/**
 * Which of these processes holds the TCP connection whose local port is `port` on 127.0.0.1 (Linux: the socket's
 * inode from /proc/net/tcp, then the process with a file descriptor on it): for a test that must tell which of two
 * `vigil serve` processes made a request a receiver got.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';

export async function socketOwner(port: number, pids: readonly number[]): Promise<number | undefined> {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const table = await readFile('/proc/net/tcp', 'utf8');
  const inode = table.split('\n').slice(1).map((line) => line.trim().split(/\s+/)).find((f) => f[1]?.endsWith(`:${hex}`))?.[9];
  if (!inode) return undefined;
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
    for (const fd of fds) if ((await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')) === `socket:[${inode}]`) return pid;
  }
  return undefined;
}
