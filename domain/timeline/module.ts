/** The timeline: its tables and agent tools. Its webhook handlers are wired by webhooks/. */
import type { Module } from '../../engine/module.ts';
import { TIMELINE_ENTITIES } from './entities.ts';
import { TIMELINE_OPERATIONS } from './tools.ts';

export const timelineModule: Module = { name: 'timeline', entities: TIMELINE_ENTITIES, operations: TIMELINE_OPERATIONS };
