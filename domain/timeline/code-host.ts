/**
 * `POST /webhooks/code-host/<token>`: GitHub webhook deliveries exactly as GitHub sends them — `X-GitHub-Event`,
 * `X-GitHub-Delivery`, and the payload as JSON (`application/json`) or as the form field `payload`
 * (`application/x-www-form-urlencoded`, GitHub's other content type). The router has already applied the shared
 * rules (token 404, 413 above 5 MiB, 429, and `X-Hub-Signature-256` over the raw bytes once a code-host secret
 * is saved: 401); from here on every delivery answers 200, so GitHub never disables the hook:
 *
 * - `{ status: "ok", event, entries: [{ id, service, action }] }` — the timeline entries written (github.ts says
 *   which events and how they map);
 * - `issues` events keep cards in step through the `code_host` ticket import rule (trackers/handler.ts
 *   `codeHostIssues`: `{ status: "ok" | "ignored" | "error", event: "issues", … }`);
 * - `{ status: "ignored", reason }` — `ping`, every other event, and the recorded events' cases that change nothing deployed (a push to another branch, a pull
 *   request closed unmerged, …);
 * - `{ status: "error", message }` — a body that is not a GitHub payload (not JSON, no repository, no
 *   `X-GitHub-Event`), or a failure while writing (logged; redeliver it from the hook's Recent Deliveries).
 *
 * The service: the services `repo_settings` names for the repository (`repo` matched without regard to case),
 * one entry per service; a repository without a row there, or with no services, is the service named like the
 * repository (`repository.name`). Each entry's `dedup_key` is `github:<natural key>:<service>`: a redelivery, or
 * a later event about the same push, merge, run, deployment or release, updates the same entries.
 */
import { loggedError } from '../../engine/logger.ts';
import { inTransaction, readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import type { WebhookAnswer, WebhookRequest } from '../webhook-contract.ts';
import { codeHostIssues } from '../trackers/handler.ts';
import { readGitHub } from './github.ts';
import { deploymentEvent } from '../../outbound/events.ts';
import { publish } from '../../outbound/publish.ts';
import { recordEntry, type Recorded } from './store.ts';
import { readEntry } from './tools.ts';
import { DEPLOYMENT_EVENT_TYPES, LIMITS } from './vocabulary.ts';
import repoSettings from '../../resources/repo_settings.ts';

/** repo_settings holds at most 50 services per repository */
const MAX_SERVICES = 50;

type Payload = { payload: unknown } | { error: string };

/** The payload: the JSON the router parsed, or the `payload` field of a form-encoded body. */
function decode(request: WebhookRequest): Payload {
  if (request.body !== undefined) return { payload: request.body };
  if (request.raw.length === 0) return { error: 'The body is empty; GitHub sends the event payload as JSON.' };
  const form = /application\/x-www-form-urlencoded/i.test(request.header('content-type') ?? '') || request.raw.subarray(0, 8).toString('latin1') === 'payload=';
  if (!form) return { error: 'The body is not JSON; set the hook\'s content type to application/json (or application/x-www-form-urlencoded).' };
  const field = new URLSearchParams(request.raw.toString('utf8')).get('payload');
  if (field === null) return { error: 'The form-encoded body has no payload field.' };
  try {
    return { payload: JSON.parse(field) };
  } catch {
    return { error: 'The payload field of the form-encoded body is not JSON.' };
  }
}

/** The services repo_settings maps the repository to, or [] when it maps none. */
async function mappedServices(services: Services, organizationId: string, fullName: string): Promise<string[]> {
  const family = services.registry.family(repoSettings);
  const [row] = await readStore(services).list(family, organizationId, { where: { repo: fullName.toLowerCase() } });
  const list = typeof row?.services === 'string' ? JSON.parse(row.services) : row?.services;
  if (!Array.isArray(list)) return [];
  return [...new Set(list.filter((s): s is string => typeof s === 'string' && s.trim() !== '').map((s) => s.trim().slice(0, LIMITS.name)))]
    .sort()
    .slice(0, MAX_SERVICES);
}

const answer = (body: Record<string, unknown>, outcome: string, detail?: string): WebhookAnswer => ({ status: 200, body, outcome, ...(detail ? { detail } : {}) });

function summarize(results: Recorded[]): string {
  const counts = new Map<string, number>();
  for (const r of results) counts.set(r.action, (counts.get(r.action) ?? 0) + 1);
  return [...counts].map(([action, n]) => (n > 1 ? `${action} ×${n}` : action)).join(', ');
}

export async function codeHostHandler(request: WebhookRequest): Promise<WebhookAnswer> {
  const event = request.header('x-github-event')?.trim();
  try {
    const decoded = decode(request);
    if ('error' in decoded) return answer({ status: 'error', message: decoded.error }, 'error', decoded.error);
    if (event === 'issues') return await codeHostIssues(request, decoded.payload);
    const result = readGitHub(event, request.header('x-github-delivery'), decoded.payload);
    if (result.kind === 'ignored') return answer({ status: 'ignored', reason: result.reason }, 'ignored', result.reason);
    if (result.kind === 'error') return answer({ status: 'error', message: result.message }, 'error', result.message);

    const { entry } = result;
    const { services, organization, receivedAt } = request;
    const mapped = await mappedServices(services, organization.id, entry.repository.fullName);
    const names = mapped.length ? mapped : [entry.repository.name.slice(0, LIMITS.name)];
    const draft = (service: string) => ({
      source: 'code-host' as const, dedup_key: `${entry.key}:${service}`, service, event_type: entry.event_type, status: entry.status,
      fields: entry.fields, started_at: entry.started_at, completed_at: entry.completed_at, details: entry.details,
    });
    // a deployment (deployment_status) goes out as deployment.recorded, in the entries' transaction, when a rule takes it
    const deployment = (DEPLOYMENT_EVENT_TYPES as readonly string[]).includes(entry.event_type);
    const results =
      names.length === 1 && !deployment
        ? [await recordEntry(readStore(services).execute, organization.id, draft(names[0]!), receivedAt)]
        : await inTransaction(services, async (store) => {
          const out: Recorded[] = [];
          for (const service of names) out.push(await recordEntry(store.execute, organization.id, draft(service), receivedAt));
          if (deployment) {
            await publish(services, store, organization.id, ['deployment.recorded'], () =>
              Promise.all(out.map(async (r) => deploymentEvent(await readEntry(store.execute, r.id), r.action, receivedAt))));
          }
          return out;
        });
    return answer(
      { status: 'ok', event, entries: results.map((r, i) => ({ id: r.id, service: names[i], action: r.action })) },
      summarize(results),
    );
  } catch (error) {
    // a database outage is the router's to answer (503, logged once), not a 200 `error`
    if (request.services.outage.noted(error)) throw error;
    request.services.log.error({ err: loggedError(error), event }, 'code-host delivery not recorded');
    const message = 'The delivery could not be recorded; redeliver it from the hook\'s Recent Deliveries.';
    return answer({ status: 'error', message }, 'error', message);
  }
}
