import type { Widening } from '../../outbound/net/addresses.ts';

/** How the check scheduler behaves in one deployment (bin/env.ts reads them from the environment). */
export interface CheckOptions {
  /**
   * seconds between scheduling passes (wall time: a poll cadence, like the job queue's own; whether a check is
   * due is decided with the injected clock). 0 starts no passes (tests run them by hand). Default 5.
   */
  tickSeconds?: number;
  /** consecutive failed runs of one check before its alert fires (default 2: one lost packet pages no one) */
  failuresToAlert?: number;
  /**
   * whether checks may reach loopback addresses (127.0.0.0/8, ::1): this machine's own services (default false).
   * Like `allowPrivate`, a widening of the outbound address policy for checks alone (see `checkWidening`)
   */
  allowLoopback?: boolean;
  /** whether checks may reach internal networks (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7); the families accept them (default true) */
  allowPrivate?: boolean;
  /** how long a certificate monitor waits for a TLS handshake (ms, default 10000) */
  tlsTimeoutMs?: number;
}

export type ResolvedCheckOptions = Required<CheckOptions>;

export const CHECK_DEFAULTS: ResolvedCheckOptions = { tickSeconds: 5, failuresToAlert: 2, allowLoopback: false, allowPrivate: true, tlsTimeoutMs: 10_000 };

/**
 * What checks may reach beyond the deployment's outbound policy (`VIGIL_OUTBOUND_*`, which applies to them too):
 * monitoring internal hosts is what checks are for. Link-local, metadata and reserved ranges stay refused.
 */
export function checkWidening(options: ResolvedCheckOptions): Widening {
  return { loopback: options.allowLoopback, internal: options.allowPrivate };
}

export function resolveCheckOptions(options: CheckOptions = {}): ResolvedCheckOptions {
  return { ...CHECK_DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
}

declare module '../../engine/config.ts' {
  interface ServiceConfig {
    /** the check scheduler's cadence, alert threshold and reach (`VIGIL_CHECK_*`); absent: the defaults */
    checks?: CheckOptions;
  }
}
