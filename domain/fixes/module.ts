/** Fix requests: their tables, agent tools and the analysis job. Their webhook handler is wired by webhooks/. */
import type { Module } from '../../engine/module.ts';
import { fixRequestJob } from './analysis.ts';
import { FIX_ENTITIES } from './entities.ts';
import { FIX_OPERATIONS } from './tools.ts';
import codeHostSettings from '../../resources/code_host_settings.ts';
import repoSettings from '../../resources/repo_settings.ts';

export const fixesModule: Module = { name: 'fixes', families: [codeHostSettings, repoSettings], entities: FIX_ENTITIES, operations: FIX_OPERATIONS, jobs: [fixRequestJob] };
