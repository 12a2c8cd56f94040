/**
 * Investigations run: the rows the alert pipeline records (`requested`) are worked by the `investigations` job
 * queue (the pipeline enqueues in its own transaction). `runInvestigation`:
 * 1. claims the row (`requested` → `running`, or a `running` one left by an instance that died more than
 *    `STALE_MS` ago) with a compare-and-set, so two workers never run one investigation; anything else is
 *    left as it is (a repeat of a finished job changes nothing);
 * 2. gathers the evidence (evidence.ts);
 * 3. asks the provider, purpose `investigation` (client.ts: providers, platform fallback, redaction when
 *    `anonymization_enabled`, the spend ledger with the investigation id as reference): one investigator, or —
 *    with `multi_agent_investigation` — a triager (the alert, its re-fires, the storm, cards and bindings) and a
 *    change analyst (the alert and the service's changes), whose answers a summariser turns into the findings;
 * 4. records `completed` with the findings, or `failed` with the reason (`AiUnavailable`'s sentence, or that the
 *    alert is gone). An unexpected error puts the row back to `requested` and fails the job attempt, so the queue
 *    retries it; the last attempt records `failed`.
 */
import type { Job, JobHandler } from '../../engine/jobs/types.ts';
import { inTransaction } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import type { SqlExecutor } from '../../engine/persistence/store.ts';
import { AiUnavailable, complete, requireProvider, type AiAnswer, type ChatMessage } from './client.ts';
import { gatherEvidence, type Evidence } from './evidence.ts';
import { readAiSettings } from './providers.ts';
import { Redactor } from './redact.ts';

export const INVESTIGATIONS_QUEUE = 'investigations';
export const STALE_MS = 15 * 60_000;
const RETRY_LIMIT = 2;
const MAX_AGENT_OUTPUT = 20_000;

export interface Findings {
  summary: string;
  likely_cause: string | null;
  evidence: string[];
  next_steps: string[];
  confidence: 'low' | 'medium' | 'high' | null;
  mode: 'single_agent' | 'multi_agent';
  /** whether the prompts were anonymized */
  redacted: boolean;
  agents: { role: string; provider: string; model: string; output: string }[];
}

const FINDINGS_SHAPE =
  'Answer with one JSON object: {"summary": string (two or three sentences for the on-call engineer), "likely_cause": string or null, ' +
  '"evidence": [strings: the facts from the material that support it], "next_steps": [strings: what to check or do next, most useful first], ' +
  '"confidence": "low" | "medium" | "high"}. Use only the material given; say so when it is not enough.';

const ROLES = {
  investigator: `You are the incident investigator of an operations team. You get an alert, its recent history, the recent deployments and code changes of its service, related work cards and its telemetry bindings. Find the most likely cause. ${FINDINGS_SHAPE}`,
  triager: 'You are the triager of an operations team. From the alert, its recent re-fires, any alert storm it belongs to, related work cards and its telemetry bindings, assess what is affected, how badly, and whether this is new or recurring. Answer with one JSON object: {"impact": string, "recurring": boolean, "notes": [strings]}.',
  change_analyst: 'You are the change analyst of an operations team. From the alert and the deployments and code changes of its service shortly before it, say which change (if any) most likely caused it and why. Answer with one JSON object: {"suspect_changes": [{"change": string, "why": string}], "reasoning": string}.',
  summariser: `You are the lead of an incident investigation. You get the alert and the answers of a triager and a change analyst. Combine them into the findings. ${FINDINGS_SHAPE}`,
} as const;

function section(title: string, value: unknown): string {
  return `## ${title}\n${JSON.stringify(value, null, 2)}`;
}

function material(evidence: Evidence, parts: ('alert' | 'refires' | 'storm' | 'changes' | 'cards' | 'bindings')[]): string {
  const titles = { alert: 'Alert', refires: 'Recent re-fires and effects', storm: 'Alert storm', changes: 'Recent deployments and code changes of the service', cards: 'Related cards', bindings: 'Telemetry bindings of the service' };
  return parts.filter((p) => p === 'alert' || evidence[p] !== null).map((p) => section(titles[p], evidence[p])).join('\n\n');
}

/** The JSON object in an answer (a fenced block or bare), or null. */
function parseObject(content: string): Record<string, unknown> | null {
  const fenced = content.match(/```(?:json)?\s*([\s\S]*?)```/);
  const text = (fenced?.[1] ?? content).trim();
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  try {
    const parsed = JSON.parse(text.slice(start, end + 1));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') as string[] : []);

function findingsOf(answer: AiAnswer, agents: Findings['agents'], mode: Findings['mode'], redacted: boolean): Findings {
  const parsed = parseObject(answer.content);
  const confidence = parsed?.confidence;
  return {
    summary: typeof parsed?.summary === 'string' ? parsed.summary : answer.content.trim().slice(0, MAX_AGENT_OUTPUT),
    likely_cause: typeof parsed?.likely_cause === 'string' ? parsed.likely_cause : null,
    evidence: strings(parsed?.evidence),
    next_steps: strings(parsed?.next_steps),
    confidence: confidence === 'low' || confidence === 'medium' || confidence === 'high' ? confidence : null,
    mode,
    redacted,
    agents,
  };
}

type Claimed = { organization_id: string; alert_id: string | null; storm_id: string | null };

async function claim(services: Services, id: string, now: Date): Promise<Claimed | null> {
  const rows = await inTransaction(services, (store) =>
    store.execute(
      `update investigations set status = 'running', started_at = ?, finished_at = null, failure_reason = null
        where id = ? and (status = 'requested' or (status = 'running' and started_at < ?))
        returning organization_id, alert_id, storm_id`,
      [now, id, new Date(now.getTime() - STALE_MS)],
    ));
  const row = rows[0];
  return row ? { organization_id: String(row.organization_id), alert_id: (row.alert_id as string | null) ?? null, storm_id: (row.storm_id as string | null) ?? null } : null;
}

async function finish(services: Services, id: string, outcome: { findings: Findings } | { failure: string }, now: Date): Promise<void> {
  await inTransaction(services, (store) =>
    'findings' in outcome
      ? store.execute(`update investigations set status = 'completed', finished_at = ?, findings = ?::jsonb, failure_reason = null where id = ?`, [now, JSON.stringify(outcome.findings), id])
      : store.execute(`update investigations set status = 'failed', finished_at = ?, failure_reason = ? where id = ?`, [now, outcome.failure, id]));
}

async function investigate(services: Services, id: string, organizationId: string, evidence: Evidence, now: Date): Promise<Findings> {
  const settings = await readAiSettings(services, organizationId);
  // one redactor for every agent: a value has one placeholder across the whole investigation
  const redactor = new Redactor();
  const ask = async (role: keyof typeof ROLES, user: string) => {
    const messages: ChatMessage[] = [{ role: 'system', content: ROLES[role] }, { role: 'user', content: user }];
    const answer = await complete(services, { organization: { id: organizationId }, purpose: 'investigation', messages, responseFormat: { type: 'json_object' }, reference: id, redactor }, now);
    return { answer, agent: { role, provider: answer.provider, model: answer.model, output: answer.content.slice(0, MAX_AGENT_OUTPUT) } };
  };
  if (!settings.multi_agent_investigation) {
    const { answer, agent } = await ask('investigator', material(evidence, ['alert', 'refires', 'storm', 'changes', 'cards', 'bindings']));
    return findingsOf(answer, [agent], 'single_agent', settings.anonymization_enabled);
  }
  const triage = await ask('triager', material(evidence, ['alert', 'refires', 'storm', 'cards', 'bindings']));
  const changes = await ask('change_analyst', material(evidence, ['alert', 'changes']));
  const summary = await ask('summariser', [
    material(evidence, ['alert']),
    section('Triager\'s answer', triage.answer.content),
    section('Change analyst\'s answer', changes.answer.content),
  ].join('\n\n'));
  return findingsOf(summary.answer, [triage.agent, changes.agent, summary.agent], 'multi_agent', settings.anonymization_enabled);
}

export type RunOutcome = 'completed' | 'failed' | 'not_claimed';

/** Runs one investigation to its end (see the top of this file). `lastAttempt`: whether the queue will retry a failed attempt. */
export async function runInvestigation(services: Services, investigationId: string, job: { lastAttempt: boolean } = { lastAttempt: true }): Promise<RunOutcome> {
  const started = services.clock.now();
  const claimed = await claim(services, investigationId, started);
  if (!claimed) return 'not_claimed';
  try {
    // a deployment with no AI provider fails every investigation: say so before reading the evidence
    await requireProvider(services, claimed.organization_id);
    const evidence = claimed.alert_id ? await gatherEvidence(services, claimed.organization_id, claimed.alert_id, claimed.storm_id, started) : null;
    if (!evidence) {
      await finish(services, investigationId, { failure: 'The alert this investigation was requested for no longer exists.' }, services.clock.now());
      return 'failed';
    }
    const findings = await investigate(services, investigationId, claimed.organization_id, evidence, started);
    await finish(services, investigationId, { findings }, services.clock.now());
    return 'completed';
  } catch (error) {
    if (error instanceof AiUnavailable) {
      await finish(services, investigationId, { failure: error.message }, services.clock.now());
      return 'failed';
    }
    // a database outage is logged once (engine/persistence/outage.ts), not per job
    if (!services.outage.noted(error)) services.log.error({ investigation: investigationId, err: { name: (error as Error)?.name } }, 'investigation failed unexpectedly');
    if (job.lastAttempt) {
      await finish(services, investigationId, { failure: 'The investigation failed on an internal error; ask for a new one.' }, services.clock.now());
      return 'failed';
    }
    // released for the queue's retry
    await inTransaction(services, (store) => store.execute(`update investigations set status = 'requested', started_at = null where id = ? and status = 'running'`, [investigationId]));
    throw new Error('investigation attempt failed; it will be retried');
  }
}

function investigationId(job: Job): string {
  const id = (job.data as { investigation_id?: unknown } | null)?.investigation_id;
  if (typeof id !== 'string') throw new Error('an investigations job needs investigation_id');
  return id;
}

export const investigationsJob: JobHandler = {
  queue: INVESTIGATIONS_QUEUE,
  retryLimit: RETRY_LIMIT,
  retryDelay: 5,
  expireInSeconds: STALE_MS / 1000,
  async handle(job, services) {
    await runInvestigation(services, investigationId(job), { lastAttempt: job.retryCount >= RETRY_LIMIT });
  },
};

/** Enqueues an investigation in the caller's transaction (the alert pipeline), when this service works the queue. */
export async function enqueueInvestigation(services: Services, store: { execute: SqlExecutor }, investigationId: string): Promise<void> {
  if (!services.jobs?.queues.includes(INVESTIGATIONS_QUEUE)) return;
  await services.jobs.send(INVESTIGATIONS_QUEUE, { investigation_id: investigationId }, { store, singletonKey: investigationId });
}
