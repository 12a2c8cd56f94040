/**
 * Deployment settings of requests that leave (`VIGIL_OUTBOUND_*`, `VIGIL_CODE_HOST_*`, read in bin/env.ts),
 * declared on the engine's ServiceConfig.
 */
import type { LookupAddress } from 'node:dns';

/**
 * requests to addresses users configure: `allowLoopback` lets them reach 127.0.0.0/8 and ::1, and
 * `allowedNetworks` (CIDRs) the networks listed, refused otherwise like every private address; `resolve` replaces
 * the system resolver and `retryDelaysSeconds` the delivery retry schedule (tests)
 */
export interface OutboundSettings {
  /** 127.0.0.0/8 and ::1 reachable (`VIGIL_OUTBOUND_ALLOW_LOOPBACK=on`; the test harness turns it on) */
  allowLoopback?: boolean;
  /** CIDRs made reachable (`VIGIL_OUTBOUND_ALLOWED_NETWORKS`) */
  allowedNetworks?: readonly string[];
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
  retryDelaysSeconds?: readonly number[];
}

/** the code-host app (GitHub's shape): fix pull requests and issue import act as its installation */
export interface CodeHostSettings {
  /** the REST API's base URL, e.g. https://api.github.com or https://ghe.example.com/api/v3 */
  apiUrl: string;
  /** the app's id (GitHub's "App ID"; its client id works too) */
  appId?: string;
  /** the app's private key, PEM (PKCS#1 as GitHub hands it out, or PKCS#8); `\n` escapes are accepted */
  privateKey?: string;
  /** per call, in ms (default 15000) */
  timeoutMs?: number;
}

declare module '../../engine/config.ts' {
  interface ServiceConfig {
    outbound?: OutboundSettings;
    /**
     * the deployment's code-host app: the REST API's base URL (GitHub's shape) and the app that organizations
     * install; fix pull requests act as that app's installation
     */
    codeHost?: CodeHostSettings;
  }
}
