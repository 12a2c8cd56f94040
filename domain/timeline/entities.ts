/**
 * The deployments timeline: one row per change to a service — a deploy, rollback or other change posted to the
 * `deployments` webhook, or a repository event from the `code-host` webhook (push, merged pull request, workflow
 * run, deployment status, release). What an investigation reads: "what changed on this service before the alert".
 *
 * `dedup_key` makes a later delivery update the entry instead of adding one (a CI run's start, then its end; a
 * GitHub redelivery): unique per organization and source, so a deployments sender can never update a code-host
 * entry by guessing its key; PostgreSQL lets any number of rows have none (NULLs are distinct).
 * `occurred_at` is the entry's time for ordering and the `since` filter: completed_at, else started_at, else when the
 * first delivery of it arrived.
 */
import { EntitySchema } from '@mikro-orm/core';
import { uuid, text, time, optionalText, optionalTime } from '../../engine/persistence/columns.ts';

export const TimelineEntryEntity = new EntitySchema<any>({
  name: 'TimelineEntry',
  tableName: 'timeline_entries',
  properties: {
    id: { ...uuid, primary: true },
    // insertion order, so entries of the same instant still list newest first
    seq: { type: 'bigint', columnType: 'bigint', autoincrement: true, unique: true },
    organization_id: uuid,
    /** deployments or code-host */
    source: text,
    dedup_key: optionalText,
    /** vocabulary.ts: deploy, rollback, …, code_push, pull_request_merged, workflow_run, release */
    event_type: text,
    /** started, in_progress, succeeded, failed or cancelled */
    status: text,
    service: text,
    environment: optionalText,
    version: optionalText,
    previous_version: optionalText,
    deployed_by: optionalText,
    description: optionalText,
    commit_sha: optionalText,
    repo_full_name: optionalText,
    pr_url: optionalText,
    compare_url: optionalText,
    run_url: optionalText,
    branch: optionalText,
    author: optionalText,
    started_at: optionalTime,
    completed_at: optionalTime,
    occurred_at: time,
    /** what the code host said beyond the columns (event, delivery id, page URL, run number, …) */
    details: { type: 'json', columnType: 'jsonb', nullable: true },
    created_at: time,
    updated_at: time,
  },
  uniques: [{ properties: ['organization_id', 'source', 'dedup_key'] }],
  indexes: [
    // list_deployments pages by (occurred_at, seq), newest first
    { properties: ['organization_id', 'occurred_at', 'seq'] },
    { properties: ['organization_id', 'service', 'occurred_at'] },
  ],
});

export const TIMELINE_ENTITIES: EntitySchema[] = [TimelineEntryEntity];
