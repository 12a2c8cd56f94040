/**
 * The stream plumbing of the webhook endpoints: the body read as raw bytes under a limit (signatures are computed
 * over them; the router is mounted before the JSON body parser), and the lingering close after a 413.
 */
import type { IncomingMessage } from 'node:http';

/** The bytes read, or null past the limit; `size` counts what arrived (or what `Content-Length` declared). */
export interface RawBody {
  raw: Buffer | null;
  size: number;
}

/**
 * Reads the body up to `limit` bytes. A larger `Content-Length` is not read at all; a chunked body is cut off at
 * the limit (reading stops there). A failed or aborted upload rejects with status 400.
 */
export function readBounded(req: IncomingMessage, limit: number): Promise<RawBody> {
  const declared = Number(req.headers['content-length'] || 0);
  if (declared > limit) return Promise.resolve({ raw: null, size: declared });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const settle = (result: RawBody) => {
      if (settled) return;
      settled = true;
      cleanup();
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        settle({ raw: null, size });
      } else chunks.push(chunk);
    };
    const onEnd = () => settle({ raw: Buffer.concat(chunks), size });
    const onError = (error: Error) => {
      if (settled) return;
      settled = true;
      cleanup();
      reject(Object.assign(error, { status: 400 }));
    };
    const onClose = () => {
      if (!settled && !req.complete) onError(new Error('The request was aborted.'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * After a 413 the rest of the body is not read into memory, and the connection is closed. Closing a socket
 * while the sender is still writing makes the peer's kernel reset the connection, and many clients then lose
 * the answer; so, like a web server's lingering close, the write side is closed first and up to 1 MiB more is
 * discarded for at most 2 seconds before the socket is destroyed.
 */
const LINGER_BYTES = 1024 * 1024;
const LINGER_MS = 2000;

export function closeAfterAnswer(req: IncomingMessage): void {
  const socket = req.socket;
  let discarded = 0;
  const stop = () => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(stop, LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  // Node closes a `Connection: close` socket through destroySoon once the answer is written: half-close instead
  socket.destroySoon = function (this: typeof socket) {
    if (this.writable) this.end();
  };
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_BYTES) stop();
  });
  req.once('end', stop);
  req.resume();
}

/** The body parsed as JSON, or undefined when it is empty or not JSON. */
export function jsonOf(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}
