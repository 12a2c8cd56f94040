/**
 * The server-drawn charts (engine/charts): bars in proportion to their values (plain and stacked), titles and axis
 * titles drawn, values escaped, an SVG that names no outside resource, and the renderer's cost per chart (measured
 * here, asserted only loosely: the machine is shared) off the event loop. The PNG for mail, decoded: its size, its
 * bars in proportion, its text drawn with the shipped font (no system font is read), and its cost and bytes.
 */
import t from 'tap';
import { renderChart, renderChartPng, stopChartRenderer } from '../../engine/charts/render.ts';
import { barsOf, decodePng, inkIn } from '../helpers/png.ts';

t.teardown(stopChartRenderer);

/** The heights of the bars drawn (vega draws a bar as `M<x>,<y>h<w>v<h>h-<w>Z`), in the order given. */
export function barHeights(svg: string): number[] {
  return [...svg.matchAll(/aria-roledescription="bar" d="M[-\d.]+,[-\d.]+h[\d.]+v([\d.]+)h/g)].map((m) => Number(m[1]));
}

t.test('bar heights are in proportion to the values', async (t) => {
  const svg = await renderChart({
    title: 'Fires by day', description: 'Fires per day.', x: { field: 'day', title: 'Day (UTC)' }, y: { field: 'fires', title: 'Fires' },
    data: [{ day: '2026-03-02', fires: 2 }, { day: '2026-03-03', fires: 4 }, { day: '2026-03-04', fires: 8 }, { day: '2026-03-05', fires: 5 }],
  });
  const heights = barHeights(svg);
  t.equal(heights.length, 4, 'one bar per value');
  const unit = heights[0]! / 2;
  t.ok(unit > 0);
  t.same(heights.map((h) => Math.round((h / unit) * 100) / 100), [2, 4, 8, 5], 'each bar is its value times one unit');
  for (const text of ['Fires by day', 'Day (UTC)', 'Fires', '2026-03-04']) t.match(svg, `>${text}<`, `"${text}" is drawn`);
  t.notMatch(svg, /(href|src)="(?!#)/, 'no outside resource is referenced');
});

t.test('stacked bars: each segment in proportion, each person\'s total the sum', async (t) => {
  const svg = await renderChart({
    title: 'Pages by person', description: 'Pages.', x: { field: 'email', title: 'Person' }, y: { field: 'pages', title: 'Pages' },
    series: { field: 'when', title: 'When', order: ['working hours', 'off hours', 'night'] },
    data: [
      { email: 'a@example.com', when: 'working hours', pages: 1 }, { email: 'a@example.com', when: 'off hours', pages: 1 }, { email: 'a@example.com', when: 'night', pages: 2 },
      { email: 'b@example.com', when: 'working hours', pages: 0 }, { email: 'b@example.com', when: 'off hours', pages: 3 }, { email: 'b@example.com', when: 'night', pages: 0 },
    ],
  });
  const bars = [...svg.matchAll(/aria-label="([^"]*)" role="graphics-symbol" aria-roledescription="bar" d="M[-\d.]+,[-\d.]+h[\d.]+v([\d.]+)h/g)].map((m) => ({ label: m[1]!, h: Number(m[2]) }));
  const of = (email: string, when: string) => bars.find((b) => b.label.includes(email) && b.label.includes(`When: ${when}`))?.h ?? 0;
  const unit = of('a@example.com', 'working hours');
  t.ok(unit > 0);
  t.equal(Math.round(of('a@example.com', 'night') / unit), 2);
  t.equal(Math.round(of('b@example.com', 'off hours') / unit), 3);
  t.match(svg, />night</, 'the legend names the series');
});

t.test('text from the data is escaped in the SVG', async (t) => {
  const svg = await renderChart({ title: 'Noisiest <alerts>', description: 'x', x: { field: 'a', title: 'Alert' }, y: { field: 'n', title: 'Fires' }, data: [{ a: '<script>alert(1)</script>', n: 1 }] });
  t.notMatch(svg, /<script>/);
  t.match(svg, /&lt;script&gt;|&lt;script>/);
});

t.test('one chart\'s cost, and the event loop stays free while it is drawn', async (t) => {
  const chart = (n: number) => ({
    title: `Fires ${n}`, description: 'x', x: { field: 'day', title: 'Day' }, y: { field: 'fires', title: 'Fires' },
    data: Array.from({ length: 90 }, (_, i) => ({ day: `d${i}`, fires: (i * 7 + n) % 13 })),
  });
  await renderChart(chart(0));
  let longest = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 2);
  const started = performance.now();
  for (let i = 1; i <= 5; i++) await renderChart(chart(i));
  const each = (performance.now() - started) / 5;
  clearInterval(timer);
  t.comment(`a 90-bar chart: ${each.toFixed(1)} ms each (warm worker); longest gap between 2 ms timers meanwhile ${longest.toFixed(1)} ms`);
  t.ok(longest < 200, 'the server keeps answering while charts are drawn');
});

const FIRES = {
  title: 'Fires by day', description: 'Fires per day.', x: { field: 'day', title: 'Day (UTC)' }, y: { field: 'fires', title: 'Fires' },
  data: [{ day: '2026-03-02', fires: 2 }, { day: '2026-03-03', fires: 4 }, { day: '2026-03-04', fires: 8 }, { day: '2026-03-05', fires: 5 }],
};

t.test('a PNG for mail: the picture\'s width as asked at twice the pixels, bars in proportion, the text drawn', async (t) => {
  const drawn = await renderChartPng({ ...FIRES, outerWidth: 600 });
  const png = decodePng(drawn.png);
  t.equal(png.width, 1200, 'the whole picture, axes included, 600 CSS pixels wide at scale 2');
  t.equal(drawn.width, 600);
  t.equal(png.height, drawn.height * 2);
  const bars = barsOf(png, '#0072B2');
  t.equal(bars.length, 4, 'one bar per value');
  const unit = bars[0]!.height / 2;
  t.same(bars.map((b) => Math.round(b.height / unit * 4) / 4), [2, 4, 8, 5], 'each bar is its value times one unit, to a pixel');
  t.ok(bars.every((b, i) => i === 0 || b.from > bars[i - 1]!.to), 'left to right in the data\'s order');
  // the title is the only thing drawn above the plot: with no font found it would be blank
  const ink = inkIn(png, 0, 0, png.width, 40);
  t.ok(ink > 300, `the title's letters are drawn (${ink} dark pixels)`);
  const longer = decodePng((await renderChartPng({ ...FIRES, title: 'Fires by day, and by night as well', outerWidth: 600 })).png);
  t.ok(inkIn(longer, 0, 0, longer.width, 40) > ink * 2, 'a title three times as long draws over twice the ink: letters, not a box');
});

t.test('a PNG\'s cost and size', async (t) => {
  const chart = (n: number) => ({ ...FIRES, title: `Fires ${n}`, outerWidth: 600, data: Array.from({ length: 7 }, (_, i) => ({ day: `2026-03-0${i + 1}`, fires: (i * 7 + n) % 13 })) });
  await renderChartPng(chart(0));
  const started = performance.now();
  const sizes: number[] = [];
  for (let i = 1; i <= 5; i++) sizes.push((await renderChartPng(chart(i))).png.length);
  const each = (performance.now() - started) / 5;
  t.comment(`a 7-bar PNG at 1200 px wide: ${each.toFixed(1)} ms each (warm worker, SVG and PNG), ${Math.round(Math.max(...sizes) / 1024)} KB at most`);
  t.ok(Math.max(...sizes) < 100_000, 'small enough to attach to every mail');
  t.equal(await renderChartPng(chart(5)), await renderChartPng(chart(5)), 'the same chart again is remembered, not drawn again');
});
