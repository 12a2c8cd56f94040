/** Insights: how on call is going, as figures over a range (get_insights; docs/insights.md). Reads the alerts' and on call's rows; mails the week's figures every Monday, with their charts, to the admins and to each team. */
import type { Module } from '../../engine/module.ts';
import scheduleOverrides from '../../resources/schedule_overrides.ts';
import schedules from '../../resources/schedules.ts';
import { getInsights } from './operation.ts';
import { seedWeeklyInsights, WeeklyMailEntity, weeklyInsightsJob } from './weekly.ts';

export const insightsModule: Module = {
  name: 'insights', families: [schedules, scheduleOverrides], operations: [getInsights],
  // the weekly mail to each organization's admins and each team's members (weekly.ts)
  entities: [WeeklyMailEntity], jobs: [weeklyInsightsJob], onStart: seedWeeklyInsights,
};
