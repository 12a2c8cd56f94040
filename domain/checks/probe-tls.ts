/**
 * One certificate check: a TLS handshake with `host`:`port` (server name `sni`, else `host` when it is a
 * hostname) through the guarded outbound client with the checks' widening, reading the leaf certificate's
 * expiry. The chain is not verified: the monitor watches expiry, and internal endpoints often use a private CA or
 * a self-signed certificate. An endpoint that completed no handshake "could not be reached", whatever kept it
 * from answering (the operator's log says what).
 */
import { isIP } from 'node:net';
import type { OutboundHttp, Widening } from '../../outbound/net/http.ts';

export interface TlsTarget {
  host: string;
  port: number;
  sni: string | null;
}

export type TlsResult = { expiresAt: Date; error: null } | { expiresAt: null; error: string };

export async function probeTls(http: OutboundHttp, target: TlsTarget, widening: Widening, timeoutMs: number): Promise<TlsResult> {
  const servername = target.sni ?? (isIP(target.host) ? undefined : target.host);
  let certificate;
  try {
    certificate = await http.peerCertificate({ host: target.host, port: target.port, servername, timeoutMs, purpose: 'certificate monitor', widening });
  } catch {
    return { expiresAt: null, error: 'the endpoint could not be reached' };
  }
  const expiresAt = certificate?.valid_to ? new Date(certificate.valid_to) : null;
  if (!expiresAt || Number.isNaN(expiresAt.getTime())) return { expiresAt: null, error: 'the endpoint served no readable certificate' };
  return { expiresAt, error: null };
}
