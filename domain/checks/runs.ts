/**
 * Running one claimed check and recording its result on the family row. Only the read-only result columns are
 * written (never `row_version` or `updated_at`), so the row's ETag, which follows the settable configuration,
 * does not change (the spec's generic rule 4).
 */
import type { Services } from '../../engine/services.ts';
import type { SqlExecutor as Sql } from '../../engine/persistence/sql.ts';
import type { AlertFacts, RunVerdict } from './alerts.ts';
import { checkWidening, type ResolvedCheckOptions } from './options.ts';
import { outboundHttp } from '../../outbound/net/http.ts';
import { probeHttp } from './probe-http.ts';
import { probeTls } from './probe-tls.ts';
import { recordSyntheticResult } from '../slo/results.ts';
import type { CheckKind, Claimed } from './schedule.ts';

export interface RunOutcome {
  verdict: RunVerdict;
  facts: AlertFacts<CheckKind>;
  /** run again no later than this (a certificate endpoint that did not answer) */
  retryAt?: Date;
}

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** Stored headers are one sealed JSON map; opened only here, for the request. */
function openHeaders(services: Services, sealed: unknown): Record<string, string> | null {
  if (typeof sealed !== 'string' || sealed === '') return null;
  return JSON.parse(services.secrets.open(sealed)) as Record<string, string>;
}

export async function runSynthetic(services: Services, sql: Sql, table: string, claimed: Claimed, options: ResolvedCheckOptions, now: Date): Promise<RunOutcome> {
  const r = claimed.row;
  const result = await probeHttp(
    outboundHttp(services),
    {
      url: String(r.url),
      method: String(r.method ?? 'GET'),
      expected_status: Number(r.expected_status ?? 200),
      body_contains: typeof r.body_contains === 'string' ? r.body_contains : null,
      timeout_ms: Number(r.timeout_ms ?? 10_000),
      headers: openHeaders(services, r.headers),
    },
    checkWidening(options),
  );
  await sql(
    `update "${table}" set last_run_at = ?, last_status = ?, last_latency_ms = ?, last_error = ? where organization_id = ? and id = ?`,
    [now, result.passed ? 'passing' : 'failing', result.latencyMs, result.error, claimed.organization_id, claimed.check_id],
  );
  // every run, for the SLOs whose SLIs this check feeds (domain/slo)
  await recordSyntheticResult(sql, {
    organization_id: claimed.organization_id, check_id: claimed.check_id, at: now, ok: result.passed, latency_ms: result.latencyMs, status_code: null, error: result.error,
  });
  return {
    verdict: { failing: !result.passed, atOnce: false },
    facts: {
      kind: 'synthetic',
      checkId: claimed.check_id,
      title: `Synthetic check failing: ${String(r.name)}`,
      severity: 'high',
      summary: result.error,
      service: typeof r.service === 'string' ? r.service : null,
      labels: { check_id: claimed.check_id, check: String(r.name) },
    },
  };
}

export async function runCertificate(services: Services, sql: Sql, table: string, claimed: Claimed, options: ResolvedCheckOptions, now: Date): Promise<RunOutcome> {
  const r = claimed.row;
  const host = String(r.host);
  const port = Number(r.port ?? 443);
  const warnDays = Number(r.warn_days ?? 21);
  const result = await probeTls(outboundHttp(services), { host, port, sni: typeof r.sni === 'string' ? r.sni : null }, checkWidening(options), options.tlsTimeoutMs);
  const endpoint = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const labels = { monitor_id: claimed.check_id, endpoint };
  if (result.error !== null) {
    // the last certificate read stays in expires_at: the error says why it could not be read again
    await sql(`update "${table}" set last_checked_at = ?, last_status = ?, last_error = ? where organization_id = ? and id = ?`, [now, 'error', result.error, claimed.organization_id, claimed.check_id]);
    return {
      verdict: { failing: true, atOnce: false },
      facts: { kind: 'certificate', checkId: claimed.check_id, title: `Certificate check failing: ${endpoint}`, severity: 'high', summary: result.error, service: null, labels },
      retryAt: new Date(now.getTime() + HOUR),
    };
  }
  const daysLeft = Math.floor((result.expiresAt.getTime() - now.getTime()) / DAY);
  const status = result.expiresAt.getTime() <= now.getTime() ? 'expired' : daysLeft < warnDays ? 'expiring' : 'ok';
  await sql(
    `update "${table}" set last_checked_at = ?, last_status = ?, expires_at = ?, last_error = null where organization_id = ? and id = ?`,
    [now, status, result.expiresAt, claimed.organization_id, claimed.check_id],
  );
  const expired = status === 'expired';
  return {
    verdict: { failing: status !== 'ok', atOnce: true },
    facts: {
      kind: 'certificate',
      checkId: claimed.check_id,
      title: expired ? `Certificate expired: ${endpoint}` : `Certificate expiring: ${endpoint}`,
      severity: expired ? 'critical' : 'warning',
      summary: expired ? `The certificate expired at ${result.expiresAt.toISOString()}.` : `The certificate expires at ${result.expiresAt.toISOString()} (${daysLeft} days left; the monitor warns under ${warnDays}).`,
      service: null,
      labels: { ...labels, days_left: String(daysLeft) },
    },
  };
}


