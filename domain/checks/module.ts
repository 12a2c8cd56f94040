/** Synthetic checks: their tables, the scheduling job, and the recurring pass seeded at start (`config.checks`: VIGIL_CHECK_*). */
import type { Module } from '../../engine/module.ts';
import { CHECK_ENTITIES } from './entities.ts';
import { checkScheduler, checkTickJob } from './scheduler.ts';
import syntheticChecks from '../../resources/synthetic_checks.ts';
import certificateMonitors from '../../resources/certificate_monitors.ts';

export const checksModule: Module = {
  name: 'checks', families: [syntheticChecks, certificateMonitors], entities: CHECK_ENTITIES, jobs: [checkTickJob], onStart: checkScheduler,
};
