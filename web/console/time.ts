/** Times as the organization reads them: in its time zone (organization_settings.timezone), inside `<time>`. */
import { sqlExecutor } from '../../engine/persistence/sql.ts';
import type { Services } from '../../engine/services.ts';
import { readSettings } from '../../domain/organization/settings.ts';
import { html, type Html } from '../../engine/html.ts';

export type TimeFormat = (at: unknown) => Html;

export function timeFormat(timeZone: string): TimeFormat {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', timeZoneName: 'short', hourCycle: 'h23' });
  } catch {
    format = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', timeZoneName: 'short', hourCycle: 'h23' });
  }
  return (at) => {
    if (typeof at !== 'string' && !(at instanceof Date)) return html``;
    const d = new Date(at);
    if (Number.isNaN(d.getTime())) return html``;
    const parts = Object.fromEntries(format.formatToParts(d).map((p) => [p.type, p.value]));
    return html`<time datetime="${d.toISOString()}">${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${parts.timeZoneName}</time>`;
  };
}

/** The organization's time format (its settings' time zone, UTC until set). */
export async function organizationTime(services: Services, organizationId: string): Promise<TimeFormat> {
  const settings = await readSettings(services, sqlExecutor(services.db), organizationId);
  return timeFormat(String(settings.timezone || 'UTC'));
}

/** How long since `from`, as people say it on call: "14 min", "2 h 5 min", "3 d 4 h"; under a minute is "under a minute". */
export function durationSince(from: unknown, now: Date): string {
  const at = typeof from === 'string' || from instanceof Date ? new Date(from).getTime() : NaN;
  if (Number.isNaN(at)) return '';
  const minutes = Math.max(0, Math.floor((now.getTime() - at) / 60_000));
  if (minutes < 1) return 'under a minute';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  return `${Math.floor(hours / 24)} d${hours % 24 ? ` ${hours % 24} h` : ''}`;
}
