/** Email notifications: their tables, agent tools and jobs. Settings: config.ts. */
import type { Module } from '../../engine/module.ts';
import { EMAIL_ENTITIES } from './entities.ts';
import { EMAIL_JOBS } from './jobs.ts';
import { EMAIL_OPERATIONS } from './tools.ts';

export const emailModule: Module = { name: 'email', entities: EMAIL_ENTITIES, operations: EMAIL_OPERATIONS, jobs: EMAIL_JOBS };
