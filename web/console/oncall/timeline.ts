/**
 * A schedule's next days as a picture drawn on the server: inline SVG (the console runs no script), one row per
 * layer, one for the overrides, and the final row. Each shift is a rect whose <title> says who and when; the person's
 * name is written inside when it fits. Colours come from a fixed palette, one per person in order of first
 * appearance, all light enough for dark text; fills are attributes, since the console's CSP allows no inline style.
 */
import { html, type Html } from '../../../engine/html.ts';

export interface Bar { start: number; end: number; email: string }
export interface TimelineRow { label: string; bars: readonly Bar[] }

const PALETTE = ['#cfe2ff', '#cdeccf', '#ffe0a8', '#f7cfe0', '#e0d4f7', '#c8eef2', '#f1e2bd', '#dde3ea'];
const WIDTH = 1200;
const LABEL = 130;
const ROW = 30;
const AXIS = 22;
const DAY = 86_400_000;
/** about how wide a character of the 12px label is, to decide whether a name fits */
const CHAR = 7;

export const nameOf = (email: string) => email.split('@')[0]!;
const utc = (at: number) => new Date(at).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

export function timeline(title: string, rows: readonly TimelineRow[], from: number, to: number): Html {
  const colours = new Map<string, string>();
  for (const row of rows) for (const bar of row.bars) if (!colours.has(bar.email)) colours.set(bar.email, PALETTE[colours.size % PALETTE.length]!);
  const x = (at: number) => Math.round((LABEL + ((Math.min(Math.max(at, from), to) - from) / (to - from)) * (WIDTH - LABEL)) * 10) / 10;
  const height = AXIS + rows.length * ROW;
  const days: Html[] = [];
  for (let day = Math.ceil(from / DAY) * DAY; day < to; day += DAY) {
    const label = new Date(day).toUTCString().slice(0, 7).replace(',', '');
    days.push(html`<line x1="${x(day)}" y1="${AXIS - 4}" x2="${x(day)}" y2="${height}" stroke="#c3c9d1"/><text x="${x(day) + 3}" y="14" font-size="11" fill="#333">${label}</text>`);
  }
  const drawn = rows.map((row, i) => {
    const y = AXIS + i * ROW;
    const bars = row.bars.filter((b) => b.end > from && b.start < to).map((b) => {
      const left = x(b.start);
      const width = Math.max(x(b.end) - left, 1);
      const name = nameOf(b.email);
      const text = width > name.length * CHAR + 6 ? html`<text x="${left + 4}" y="${y + 19}" font-size="12" fill="#1a1a1a">${name}</text>` : '';
      return html`<g><title>${b.email}: ${utc(b.start)} to ${utc(b.end)}</title><rect x="${left}" y="${y + 4}" width="${width}" height="${ROW - 8}" rx="3" fill="${colours.get(b.email)!}" stroke="#5b6573" stroke-width="0.5"/>${text}</g>`;
    });
    return html`<text x="4" y="${y + 19}" font-size="12" fill="#1a1a1a">${row.label.length > 17 ? `${row.label.slice(0, 16)}…` : row.label}</text>${bars}`;
  });
  return html`<svg class="timeline-picture" viewBox="0 0 ${WIDTH} ${height}" width="100%" role="img" aria-label="${title}" xmlns="http://www.w3.org/2000/svg">${days}${drawn}</svg>`;
}
