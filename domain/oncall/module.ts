/** On call: who is on call when, computed from the schedules and schedule_overrides families (domain/oncall/shifts.ts), the calendars layers follow (calendar.ts), and its calendar feeds. */
import type { Module } from '../../engine/module.ts';
import { calendarOnSave, calendarRefresher, calendarRefreshJob, calendarSavedJob, scheduleCalendars, ScheduleCalendarEntity } from './calendar.ts';
import { CalendarFeedEntity, feedRoutes, rotateCalendarFeed } from './feeds.ts';
import { ONCALL_OPERATIONS } from './operations.ts';
import scheduleOverrides from '../../resources/schedule_overrides.ts';
import schedules from '../../resources/schedules.ts';
import teamMembers from '../../resources/team_members.ts';

export const oncallModule: Module = {
  name: 'oncall',
  families: [schedules, scheduleOverrides, teamMembers],
  entities: [CalendarFeedEntity, ScheduleCalendarEntity],
  operations: [...ONCALL_OPERATIONS, rotateCalendarFeed, scheduleCalendars],
  jobs: [calendarRefreshJob, calendarSavedJob],
  auditListeners: [calendarOnSave],
  routes: [feedRoutes],
  onStart: calendarRefresher,
};
