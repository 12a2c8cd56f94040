/**
 * Draws docs/insights.md's pictures: the Insights page's four charts, with the renderer the page uses, from the
 * seeded history of test/web/console/insights-pages.test.ts's kind (values written here). Run with
 * `./node_modules/.bin/node test/tools/insights-pictures.ts`.
 */
import { writeFileSync } from 'node:fs';
import { renderChart, stopChartRenderer, type BarChart } from '../../engine/charts/render.ts';

const out = new URL('../../docs/screenshots/insights/', import.meta.url);
const days = ['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05', '2026-03-06', '2026-03-07', '2026-03-08'];
const charts: Record<string, BarChart> = {
  'fires-by-day': {
    title: 'Alert fires by day', description: 'Fires per UTC day.', x: { field: 'day', title: 'Day (UTC)' }, y: { field: 'fires', title: 'Fires' },
    data: days.map((day, i) => ({ day, fires: [1, 2, 4, 0, 3, 1, 2][i]! })),
  },
  noisiest: {
    title: 'Noisiest alerts', description: 'The alerts that fired most.', x: { field: 'title', title: 'Alert' }, y: { field: 'fires', title: 'Fires' },
    data: [{ title: 'Flappy', fires: 4 }, { title: 'CpuHigh', fires: 2 }, { title: 'DiskFull', fires: 1 }],
  },
  'pages-by-person': {
    title: 'Pages by person', description: 'Pages per person by time of day.', x: { field: 'email', title: 'Person' }, y: { field: 'pages', title: 'Pages' },
    series: { field: 'when', title: 'When', order: ['working hours', 'off hours', 'night'] },
    data: [
      { email: 'alice@example.com', when: 'working hours', pages: 1 }, { email: 'alice@example.com', when: 'off hours', pages: 1 }, { email: 'alice@example.com', when: 'night', pages: 2 },
      { email: 'bob@example.com', when: 'working hours', pages: 0 }, { email: 'bob@example.com', when: 'off hours', pages: 1 }, { email: 'bob@example.com', when: 'night', pages: 0 },
    ],
  },
  'hours-on-call': {
    title: 'Hours on call', description: 'Hours on call per person.', x: { field: 'email', title: 'Person' }, y: { field: 'hours', title: 'Hours on call' },
    data: [{ email: 'alice@example.com', hours: 240 }, { email: 'bob@example.com', hours: 96 }],
  },
};
for (const [name, chart] of Object.entries(charts)) writeFileSync(new URL(`${name}.svg`, out), await renderChart(chart));
await stopChartRenderer();
