/** On call: who is on call when, computed from the schedules and schedule_overrides families (domain/oncall/shifts.ts), and its calendar feeds. */
import type { Module } from '../../engine/module.ts';
import { CalendarFeedEntity, feedRoutes, rotateCalendarFeed } from './feeds.ts';
import { ONCALL_OPERATIONS } from './operations.ts';
import scheduleOverrides from '../../resources/schedule_overrides.ts';
import schedules from '../../resources/schedules.ts';

export const oncallModule: Module = { name: 'oncall', families: [schedules, scheduleOverrides], entities: [CalendarFeedEntity], operations: [...ONCALL_OPERATIONS, rotateCalendarFeed], routes: [feedRoutes] };
