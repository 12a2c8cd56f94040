/**
 * The embedded database serves one process: PGlite keeps its pages in memory and writes them to the data directory
 * without any lock of its own, so a second process on the same directory serves too, and the writes of one are lost
 * when the other writes its pages. Before opening the database, a process creates `vigil.lock` in the directory
 * (`O_EXCL`: only one creation can succeed) holding its pid and host. A lock whose process no longer runs on this host
 * (killed, crashed) is taken over; a lock of a running process, or of another host (whose processes cannot be seen
 * from here), refuses the start with a message naming the directory and the holder.
 */
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

export const LOCK_FILE = 'vigil.lock';

export interface DataDirLock {
  /** removes the lock file (once; a later call does nothing) */
  release(): void;
}

interface Holder {
  pid: number;
  host: string;
}

/** A lock still being written by another starter (read between its creation and its first write). */
const STARTING: Holder = { pid: 0, host: '' };

/** Thrown when another process holds the directory: its message is meant for the operator as it is. */
export class DataDirInUse extends Error {
  constructor(dir: string, holder: Holder) {
    const where = holder === STARTING ? 'a process that is starting' : holder.host === hostname() ? `process ${holder.pid}` : `process ${holder.pid} on host ${holder.host}`;
    super(
      `DATA_DIR ${dir} is in use by another Vigil (${where}); the embedded database serves one process. ` +
        `Stop that process first, give this one another DATA_DIR, or use PostgreSQL (DATABASE_URL) to run several instances. ` +
        `If that process no longer runs, remove ${join(dir, LOCK_FILE)}.`,
    );
    this.name = 'DataDirInUse';
  }
}

/** Locks `dataDir` for this process; `memory://` keeps nothing on disk and needs no lock. */
export function lockDataDir(dataDir: string): DataDirLock {
  if (dataDir === 'memory://') return { release: () => {} };
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, LOCK_FILE);
  const content = JSON.stringify({ pid: process.pid, host: hostname() } satisfies Holder);
  // after a stale lock is removed, another starter may win the next creation: that one holds it then
  for (let staleRemoved = false; !tryCreate(file, content); ) {
    const holder = readHolder(file);
    if (holder === 'gone') continue;
    if (staleRemoved || (holder && holdsIt(holder))) throw new DataDirInUse(dir, holder ?? STARTING);
    removeStale(file);
    staleRemoved = true;
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      try {
        // only our own lock: a directory taken over meanwhile (it should not be) keeps its holder's
        if (readFileSync(file, 'utf8') === content) unlinkSync(file);
      } catch {
        /* already gone */
      }
    },
  };
}

function tryCreate(file: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The lock's holder; null for an unreadable lock (a process killed while writing it); 'gone' when removed meanwhile. */
function readHolder(file: string): Holder | null | 'gone' {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<Holder>;
    if (Number.isInteger(parsed.pid) && typeof parsed.host === 'string') return { pid: parsed.pid!, host: parsed.host };
  } catch {
    /* a torn write */
  }
  return null;
}

/** Whether the holder may still be running: on this host, its pid answers; on another, we cannot tell, so yes. */
function holdsIt(holder: Holder): boolean {
  if (holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the pid runs under another user
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeStale(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
