/** The chat side's background job handlers (its module.ts hands them to serve). */
import type { JobHandler } from '../../engine/jobs/types.ts';
import { chatMessageJob } from './send.ts';

export const CHAT_JOBS: JobHandler[] = [chatMessageJob];
