/** Chat: its tables, agent tools and jobs. Settings: config.ts. */
import type { Module } from '../../engine/module.ts';
import { CHAT_ENTITIES } from './entities.ts';
import { CHAT_JOBS } from './jobs.ts';
import { CHAT_OPERATIONS } from './tools.ts';
import chat from '../../resources/chat.ts';

export const chatModule: Module = { name: 'chat', families: [chat], entities: CHAT_ENTITIES, operations: CHAT_OPERATIONS, jobs: CHAT_JOBS };
