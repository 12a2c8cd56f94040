/** Synthetic checks: their tables, the scheduling job, and the recurring pass seeded at start (`options`: VIGIL_CHECK_*). */
import type { Module } from '../../engine/module.ts';
import { CHECK_ENTITIES } from './entities.ts';
import type { CheckOptions } from './options.ts';
import { checkScheduler, checkTickJob } from './scheduler.ts';
import syntheticChecks from '../../resources/synthetic_checks.ts';
import certificateMonitors from '../../resources/certificate_monitors.ts';

export function checksModule(options: CheckOptions = {}): Module {
  return { name: 'checks', families: [syntheticChecks, certificateMonitors], entities: CHECK_ENTITIES, jobs: [checkTickJob], onStart: checkScheduler(options) };
}
