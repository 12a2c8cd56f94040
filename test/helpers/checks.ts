/** Local targets for the check scheduler's tests: an HTTP server whose answer the test sets, and a TLS one. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { generate } from 'selfsigned';

export interface Target {
  url: string;
  port: number;
  /** requests received, by path */
  hits: Map<string, number>;
  /** headers of the last request */
  lastHeaders: http.IncomingHttpHeaders;
  status: number;
  body: string;
  close(): Promise<void>;
}

/** Answers `status` and `body` to every path; `/hang` never answers; `/redirect` sends to another host. */
export async function httpTarget(): Promise<Target> {
  const target = { hits: new Map<string, number>(), lastHeaders: {}, status: 200, body: 'all good' } as Target;
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    target.hits.set(path, (target.hits.get(path) ?? 0) + 1);
    target.lastHeaders = req.headers;
    if (path === '/hang') return;
    if (path === '/redirect') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      return;
    }
    res.writeHead(target.status, { 'content-type': 'text/plain' }).end(target.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  target.port = port;
  target.url = `http://127.0.0.1:${port}`;
  target.close = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return target;
}

/** A TLS server on 127.0.0.1 with a self-signed certificate valid from `notBefore` to `notAfter`. */
export async function tlsTarget(notBefore: Date, notAfter: Date): Promise<{ port: number; close(): Promise<void> }> {
  const pems = await generate([{ name: 'commonName', value: 'checks.test' }], { keySize: 2048, algorithm: 'sha256', notBeforeDate: notBefore, notAfterDate: notAfter });
  const server = tls.createServer({ key: pems.private, cert: pems.cert }, (socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export const DAY = 86_400_000;
