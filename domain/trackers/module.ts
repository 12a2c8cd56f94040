/** Ticket trackers: their tables and agent tools. Their webhook handlers and signature checks are wired by webhooks/. */
import type { Module } from '../../engine/module.ts';
import { configureTicketIntegration } from './configure-integration.ts';
import { TRACKER_ENTITIES } from './entities.ts';
import { TRACKER_OPERATIONS } from './tools.ts';
import codeHostSettings from '../../resources/code_host_settings.ts';
import ticketIntegrations from '../../resources/ticket_integrations.ts';
import ticketImportRules from '../../resources/ticket_import_rules.ts';

export const trackersModule: Module = { name: 'trackers', families: [codeHostSettings, ticketIntegrations, ticketImportRules], entities: TRACKER_ENTITIES, operations: [configureTicketIntegration, ...TRACKER_OPERATIONS] };
