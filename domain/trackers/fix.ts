/**
 * The fix label (`svc-fix`): an item carrying it also asks for a fix pull request, through the same operation as
 * `POST /webhooks/fix-requests` (`requestFix`), with `ticket` = the item's identifier, so asking again replaces
 * the earlier request instead of adding one. It is asked when the label appears: on the delivery that links the
 * item, or on the first one after the label was added (a redelivery, or an edit with the label still on, asks
 * nothing). When the fix cannot be asked — the plan lacks fix pull requests, the code-host app is not installed,
 * or requestFix refuses for another reason (no target repository, the five-open-pull-request limit, …) — the card
 * is kept in step all the same and a `fix_skipped` effect on it records the reason; `fix_requested` records an
 * accepted one. Either way the link's `fix` column keeps the outcome.
 */
import type { Organization } from '../../engine/auth/caller.ts';
import { ApiError } from '../../engine/errors.ts';
import { readStore } from '../../engine/operations/context.ts';
import type { Services } from '../../engine/services.ts';
import { hasFeature } from '../../engine/plans.ts';
import { requestFix } from '../fixes/requests.ts';
import type { TrackerItem } from './item.ts';
import codeHostSettings from '../../resources/code_host_settings.ts';

type Json = Record<string, unknown>;

const MAX_DESCRIPTION = 20_000;

export interface FixOutcome {
  outcome: 'requested' | 'skipped';
  id?: string;
  reason?: string;
  message?: string;
}

/** An effect on the card (the board's own table; cards.ts records its effects the same way). */
export async function recordEffect(services: Services, organizationId: string, cardId: string, at: Date, kind: string, detail: Json): Promise<void> {
  await readStore(services).execute('insert into card_effects (organization_id, card_id, at, kind, detail) values (?, ?, ?, ?, ?::jsonb)', [
    organizationId, cardId, at, kind, JSON.stringify(detail),
  ]);
}

function fixDescription(item: TrackerItem): string {
  const text = `${item.identifier}: ${item.title}${item.description ? `\n\n${item.description}` : ''}${item.url ? `\n\n${item.url}` : ''}`;
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text;
}

async function installed(services: Services, organizationId: string): Promise<boolean> {
  const family = services.registry.family(codeHostSettings);
  const row = await readStore(services).get(family, organizationId, organizationId);
  return typeof row?.installation_id === 'string' && row.installation_id !== '';
}

/** Asks for the item's fix and records the outcome on the card and the link. */
export async function askForFix(services: Services, organization: Organization, item: TrackerItem, cardId: string, linkId: string, now: Date): Promise<FixOutcome> {
  let result: FixOutcome;
  if (!hasFeature(organization.plan, organization.features, 'fix_pull_requests')) {
    result = { outcome: 'skipped', reason: 'plan_required', message: `Fix pull requests are not included in the ${organization.plan} plan; they need the business plan.` };
  } else if (!(await installed(services, organization.id))) {
    result = { outcome: 'skipped', reason: 'code_host_app_not_installed', message: 'The code-host app is not installed: set installation_id in code_host_settings.' };
  } else {
    try {
      const answer = await requestFix(services, organization, { description: fixDescription(item), ticket: item.identifier, ...(item.repo ? { repo: item.repo } : {}) }, now);
      result = { outcome: 'requested', id: answer.body.id };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const reason = typeof error.extra?.reason === 'string' ? error.extra.reason : error.code;
      result = { outcome: 'skipped', reason, message: error.message };
    }
  }
  const detail: Json = { label: 'svc-fix', ticket: item.identifier, ...result };
  await recordEffect(services, organization.id, cardId, now, result.outcome === 'requested' ? 'fix_requested' : 'fix_skipped', detail);
  await readStore(services).execute('update tracker_items set fix = ?::jsonb where id = ?', [JSON.stringify({ at: now.toISOString(), ...result }), linkId]);
  return result;
}
