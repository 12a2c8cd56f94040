/**
 * One certificate check: a TLS handshake with `host`:`port` (server name `sni`, else `host` when it is a
 * hostname), reading the leaf certificate's expiry. The chain is not verified: the monitor watches expiry, and
 * internal endpoints often use a private CA or a self-signed certificate.
 */
import { isIP } from 'node:net';
import tls from 'node:tls';
import { guardedLookup, literalRefusal, RefusedAddress, type AddressPolicy } from './address.ts';

export interface TlsTarget {
  host: string;
  port: number;
  sni: string | null;
}

export type TlsResult = { expiresAt: Date; error: null } | { expiresAt: null; error: string };

export async function probeTls(target: TlsTarget, policy: AddressPolicy, timeoutMs: number): Promise<TlsResult> {
  const refused = literalRefusal(target.host, policy);
  if (refused) return { expiresAt: null, error: `refused: ${refused}` };
  const servername = target.sni ?? (isIP(target.host) ? undefined : target.host);
  return new Promise((resolve) => {
    const socket = tls.connect({ host: target.host, port: target.port, servername, rejectUnauthorized: false, lookup: guardedLookup(policy) as never });
    const finish = (result: TlsResult) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ expiresAt: null, error: `no TLS handshake within ${timeoutMs} ms` }), timeoutMs);
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate();
      const expiresAt = cert?.valid_to ? new Date(cert.valid_to) : null;
      if (!expiresAt || Number.isNaN(expiresAt.getTime())) finish({ expiresAt: null, error: 'the endpoint served no readable certificate' });
      else finish({ expiresAt, error: null });
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof RefusedAddress) finish({ expiresAt: null, error: `refused: ${error.message}` });
      else finish({ expiresAt: null, error: `connection failed: ${typeof error.code === 'string' ? error.code : 'TLS error'}` });
    });
  });
}
