/** The chat side's background job handlers (webhooks/index.ts hands them to serve). */
import type { JobHandler } from '../../engine/jobs/types.ts';

export const CHAT_JOBS: JobHandler[] = [];
