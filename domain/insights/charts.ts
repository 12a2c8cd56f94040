/**
 * The insights charts as data (engine/charts draws them): the same four for the console's Insights page (SVG) and
 * the weekly mail (PNG), so both picture one set of figures alike.
 */
import type { BarChart } from '../../engine/charts/chart.ts';
import type { Insights } from './schema.ts';

export interface InsightsCharts {
  volume: BarChart;
  noisiest: BarChart;
  pages: BarChart;
  oncall: BarChart;
}

/** The UTC day of a range's instant: `from`'s own day, or the last day before `to` (the range excludes its end). */
export const dayOf = (iso: string, end: boolean) => new Date(Date.parse(iso) - (end ? 86_400_000 : 0)).toISOString().slice(0, 10);

/**
 * The charts of one answer. `top`: the noisiest alerts drawn (the mail lists fewer than the page); `outerWidth`:
 * each picture's whole width (the mail's images are shown at a fixed width).
 */
export function insightsCharts(d: Insights, options: { top?: number; outerWidth?: number } = {}): InsightsCharts {
  const size = options.outerWidth ? { outerWidth: options.outerWidth } : {};
  const noisiest = options.top === undefined ? d.noisiest : d.noisiest.slice(0, options.top);
  return {
    volume: {
      title: 'Alert fires by day', description: `Fires per UTC day from ${dayOf(d.from, false)} to ${dayOf(d.to, true)}: ${d.alerts.fires} in all.`,
      x: { field: 'day', title: 'Day (UTC)' }, y: { field: 'fires', title: 'Fires' }, data: d.volume_by_day, ...size,
    },
    noisiest: {
      title: 'Noisiest alerts', description: 'The alerts that fired most in the range, by fires.',
      x: { field: 'title', title: 'Alert' }, y: { field: 'fires', title: 'Fires' }, data: noisiest.map((n) => ({ title: n.title, fires: n.fires })), ...size,
    },
    pages: {
      title: 'Pages by person', description: 'Pages each person received, split into working hours, off hours and the night in their schedule\'s time zone.',
      x: { field: 'email', title: 'Person' }, y: { field: 'pages', title: 'Pages' },
      series: { field: 'when', title: 'When', order: ['working hours', 'off hours', 'night'] },
      data: d.pages_by_person.flatMap((p) => [
        { email: p.email, when: 'working hours', pages: p.working_hours }, { email: p.email, when: 'off hours', pages: p.off_hours }, { email: p.email, when: 'night', pages: p.night },
      ]),
      ...size,
    },
    oncall: {
      title: 'Hours on call', description: 'Hours each person was on call in the range, from the schedules.',
      x: { field: 'email', title: 'Person' }, y: { field: 'hours', title: 'Hours on call' }, data: d.on_call.map((o) => ({ email: o.email, hours: o.hours_on_call })), ...size,
    },
  };
}
