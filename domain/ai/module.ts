/** AI: the spend ledger and investigation tables, the agent tools and the investigations job. Settings: config.ts. */
import type { Module } from '../../engine/module.ts';
import { AI_ENTITIES } from './entities.ts';
import { investigationsJob } from './investigations.ts';
import { AI_OPERATIONS } from './tools.ts';
import aiProviders from '../../resources/ai_providers.ts';
import aiSettings from '../../resources/ai_settings.ts';
import serviceBindings from '../../resources/service_bindings.ts';

export const aiModule: Module = { name: 'ai', families: [aiProviders, aiSettings, serviceBindings], entities: AI_ENTITIES, operations: AI_OPERATIONS, jobs: [investigationsJob] };
