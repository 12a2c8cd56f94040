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
