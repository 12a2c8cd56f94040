/**
 * Paging: escalation policies and the escalation engine (its tables, each instance's pass, the read of an alert's
 * escalation, the dispatch of notifications through each contact type's channel), the table behind Pushover's
 * callback (webhooks/paging/pushover.ts) and the Twilio pages behind replies, key presses and status callbacks
 * (twilio-pages.ts); alert routing lives beside it (routing.ts); the pages a page's links open are web/paging's.
 */
import type { Module } from '../../engine/module.ts';
import escalationPolicies from '../../resources/escalation_policies.ts';
import pagingProviders from '../../resources/paging_providers.ts';
import { PAGING_ENTITIES } from './escalation-entities.ts';
import { escalationPasses, stopEscalationPasses } from './escalations.ts';
import { getAlertEscalation } from './escalation-read.ts';
import { PushoverReceiptEntity } from './pushover-receipts.ts';
import { TwilioPageEntity } from './twilio-pages.ts';

export const pagingModule: Module = {
  name: 'paging', families: [escalationPolicies, pagingProviders],
  entities: [...PAGING_ENTITIES, PushoverReceiptEntity, TwilioPageEntity],
  operations: [getAlertEscalation],
  onStart: escalationPasses,
  onClose: stopEscalationPasses,
};
