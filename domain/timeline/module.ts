/** The timeline: its tables and agent tools. Its webhook handlers are wired by webhooks/. */
import type { Module } from '../../engine/module.ts';
import { TIMELINE_ENTITIES } from './entities.ts';
import { TIMELINE_OPERATIONS } from './tools.ts';
import repoSettings from '../../resources/repo_settings.ts';

export const timelineModule: Module = { name: 'timeline', families: [repoSettings], entities: TIMELINE_ENTITIES, operations: TIMELINE_OPERATIONS };
