/**
 * Fix requests and their timelines.
 *
 * One row per request. A repeat (same `dedup_key` or `ticket`) rewrites the row in place and bumps `revision`,
 * so the request keeps its id and its branch; the unique keys below hold one row per key, and requests.ts takes
 * an organization-wide transaction lock so that racing repeats and the five-open-PR count see each other.
 * `worker_job`/`lease_until` say which job is analysing the request, so a second job for it stands back
 * (analysis.ts).
 */
import { EntitySchema } from '@mikro-orm/core';
import { uuid, text, time, optionalText } from '../../engine/persistence/columns.ts';

export const FixRequestEntity = new EntitySchema<any>({
  name: 'FixRequest',
  tableName: 'fix_requests',
  properties: {
    id: { ...uuid, primary: true },
    // insertion order, so rows written in the same millisecond still list newest first
    seq: { type: 'bigint', columnType: 'bigint', autoincrement: true, unique: true },
    organization_id: uuid,
    /** analyzing, pr_opened, declined, failed; or replaced (merged into another request by a repeat naming both keys) */
    status: text,
    description: text,
    /** the service and repo as sent (a repeat is identical when these, the description and the keys are) */
    service: optionalText,
    repo_requested: optionalText,
    /** the target repository, owner/name lowercased, as resolved when the request (or its latest repeat) arrived */
    repo: text,
    /** how the target was chosen: repo, service, only_mapped_repo */
    target_via: text,
    dedup_key: optionalText,
    ticket: optionalText,
    /** 1 on the first delivery, +1 per repeat that changed something */
    revision: { type: 'integer' },
    /** declined: the provider's reason; failed: what went wrong */
    reason: optionalText,
    branch: optionalText,
    pr_url: optionalText,
    pr_number: { type: 'integer', nullable: true },
    /** open while the pull request counts toward the repository's five; closed once the code host no longer lists it open */
    pr_state: optionalText,
    /** the AI provider kind and model that answered the latest analysis */
    ai_provider: optionalText,
    ai_model: optionalText,
    /** the job analysing the request now, and until when its claim holds */
    worker_job: optionalText,
    lease_until: { ...time, nullable: true },
    created_at: time,
    updated_at: time,
    completed_at: { ...time, nullable: true },
  },
  uniques: [
    // NULLs are distinct: requests without a key never collide
    { properties: ['organization_id', 'dedup_key'] },
    { properties: ['organization_id', 'ticket'] },
  ],
  indexes: [{ properties: ['organization_id', 'seq'] }, { properties: ['organization_id', 'repo', 'status'] }],
});

export const FixRequestEventEntity = new EntitySchema<any>({
  name: 'FixRequestEvent',
  tableName: 'fix_request_events',
  properties: {
    seq: { type: 'bigint', columnType: 'bigint', autoincrement: true, primary: true },
    organization_id: uuid,
    request_id: uuid,
    at: time,
    /** received, replaced, queued, analysis_started, files_read, ai_answered, superseded, pull_request_updated, … */
    step: text,
    /** the request's revision the step belongs to */
    revision: { type: 'integer' },
    detail: { type: 'json', columnType: 'jsonb' },
  },
  indexes: [{ properties: ['request_id', 'seq'] }],
});

export const FIX_ENTITIES: EntitySchema[] = [FixRequestEntity, FixRequestEventEntity];
