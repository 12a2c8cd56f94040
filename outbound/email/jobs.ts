/** The email notifier's background job handlers (its module.ts hands them to serve). */
import type { JobHandler } from '../../engine/jobs/types.ts';
import { directMailJob } from './direct.ts';
import { emailSendJob } from './send.ts';

export const EMAIL_JOBS: JobHandler[] = [emailSendJob, directMailJob];
