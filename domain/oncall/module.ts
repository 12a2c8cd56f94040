/** On call: who is on call when, computed from the schedules and schedule_overrides families (domain/oncall/shifts.ts). */
import type { Module } from '../../engine/module.ts';
import { ONCALL_OPERATIONS } from './operations.ts';

export const oncallModule: Module = { name: 'oncall', operations: ONCALL_OPERATIONS };
