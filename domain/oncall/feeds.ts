/**
 * Calendar feeds: a secret, revocable iCalendar (RFC 5545) address per schedule and per person (all their shifts
 * across the organization's schedules) that calendar apps subscribe to. The secret is in the address; only its
 * SHA-256 is stored (`oncall_feeds`), so it is answered once, by the rotation that makes it, and rotating again
 * replaces the hash: the old address answers 404 from then on. Feeds hold the shifts from 7 days ago to 90 days on.
 */
import Router from '@koa/router';
import { EntitySchema } from '@mikro-orm/core';
import ical from 'ical-generator';
import Type from 'typebox';
import { publicOrganization } from '../../engine/auth/caller.ts';
import { generateToken, hashToken } from '../../engine/crypto.ts';
import type { Row } from '../../engine/descriptor.ts';
import { validationFailed } from '../../engine/errors.ts';
import { execute } from '../../engine/operations/index.ts';
import { inTransaction, readStore, userEmail } from '../../engine/operations/context.ts';
import { ORGANIZATION } from '../../engine/operations/tool-schemas.ts';
import type { DomainOperation, Services } from '../../engine/services.ts';
import scheduleOverrides from '../../resources/schedule_overrides.ts';
import schedules from '../../resources/schedules.ts';
import { loadCalendars } from './calendar.ts';
import { groupBySchedule, scheduleOf } from './on-call.ts';
import { DAY } from './zone.ts';

export const CalendarFeedEntity = new EntitySchema<any>({
  name: 'CalendarFeed',
  tableName: 'oncall_feeds',
  properties: {
    organization_id: { type: 'string', columnType: 'uuid', primary: true },
    /** `schedule:<id>` or `person:<email>` */
    subject: { type: 'string', columnType: 'text', primary: true },
    token_hash: { type: 'string', columnType: 'text', unique: true },
    created_at: { type: 'Date', columnType: 'timestamptz' },
  },
});

export const FEED_PATH = '/calendar';
const PAST = 7 * DAY;
const AHEAD = 90 * DAY;

export const rotateCalendarFeed: DomainOperation = {
  name: 'rotate_calendar_feed',
  description:
    'Makes a new secret iCalendar address for a schedule (`schedule_id`) or, without it, for the calling person (all their shifts across the ' +
    'organization\'s schedules; needs a person\'s credential). The address is answered this once (only a hash is kept); any address made before ' +
    'for the same schedule or person stops working at once. Feeds hold the shifts from 7 days ago to 90 days on.',
  input: Type.Object({ schedule_id: Type.Optional(Type.String({ minLength: 1, description: 'the schedule; omit for your own feed' })) }, { additionalProperties: false }),
  role: 'member',
  kind: 'write',
  rest: { method: 'POST', path: 'calendar_feeds' },
  answer: { schema: Type.Object({ data: Type.Object({ subject: Type.String(), url: Type.String({ description: 'the secret address; shown once' }) }), organization: ORGANIZATION }), refusals: ['not_found'] },
  async run(services, caller, input) {
    let subject: string;
    if (typeof input.schedule_id === 'string') {
      const schedule = (await execute(services, caller, { family: schedules.name, op: 'read', id: input.schedule_id })).data as Row;
      subject = `schedule:${schedule.id}`;
    } else {
      const email = await userEmail(readStore(services), caller.credential.userId);
      if (!email) throw validationFailed([{ field: 'schedule_id', message: 'is required for a key: a personal feed needs a person\'s credential' }]);
      subject = `person:${email}`;
    }
    const token = generateToken('vcal_');
    await inTransaction(services, async (store) => {
      await store.execute('delete from oncall_feeds where organization_id = ? and subject = ?', [caller.organization.id, subject]);
      await store.execute('insert into oncall_feeds (organization_id, subject, token_hash, created_at) values (?, ?, ?, ?)', [caller.organization.id, subject, hashToken(token), services.clock.now()]);
    });
    return { json: { data: { subject, url: `${services.config.publicUrl}${FEED_PATH}/${token}.ics` }, organization: publicOrganization(caller.organization) } };
  },
};

/** The iCalendar text of a feed's subject, over its window around `now`. */
export async function feedText(services: Services, organizationId: string, subject: string, now: number): Promise<string | null> {
  const store = readStore(services);
  const [kind, name] = [subject.slice(0, subject.indexOf(':')), subject.slice(subject.indexOf(':') + 1)];
  const rows = await store.list(schedules, organizationId, kind === 'schedule' ? { where: { id: name } } : {});
  if (kind === 'schedule' && !rows.length) return null;
  const overrides = rows.length ? await store.list(scheduleOverrides, organizationId, { where: { schedule_id: { $in: rows.map((r) => r.id) } } }) : [];
  const bySchedule = groupBySchedule(overrides);
  const following = rows.filter((r) => Array.isArray(r.layers) && (r.layers as Row[]).some((l) => l.ical_url)).map((r) => String(r.id));
  if (following.length) await loadCalendars(services, organizationId, following);
  const calendar = ical({ name: kind === 'schedule' ? `On call: ${String(rows[0]!.name)}` : `My on-call shifts (${name})`, prodId: { company: 'Vigil', product: 'on-call' } });
  for (const schedule of rows) {
    const { shifts } = scheduleOf(schedule, bySchedule.get(String(schedule.id)) ?? [], now - PAST, now + AHEAD);
    for (const shift of shifts) {
      if (kind === 'person' && shift.email !== name) continue;
      calendar.createEvent({
        id: `${String(schedule.id)}-${shift.start}@vigil`, start: new Date(shift.start), end: new Date(shift.end),
        summary: kind === 'schedule' ? `On call: ${shift.email}` : `On call: ${String(schedule.name)}`,
        description: 'layer' in shift.source ? 'from the schedule\'s layers' : 'an override',
      });
    }
  }
  return calendar.toString();
}

/** `GET /calendar/<secret>.ics`: no other credential; an unknown or rotated secret is 404. */
export function feedRoutes(services: Services): Router {
  const router = new Router();
  router.get(`${FEED_PATH}/:file`, async (ctx) => {
    const token = String(ctx.params.file ?? '').replace(/\.ics$/, '');
    const [feed] = token ? await readStore(services).execute('select organization_id, subject from oncall_feeds where token_hash = ?', [hashToken(token)]) : [];
    const text = feed ? await feedText(services, String(feed.organization_id), String(feed.subject), services.clock.now().getTime()) : null;
    if (text === null) {
      ctx.status = 404;
      ctx.body = { error: 'not_found', message: 'No calendar feed has this address (it may have been rotated).' };
      return;
    }
    ctx.set('Cache-Control', 'private, max-age=300');
    ctx.type = 'text/calendar; charset=utf-8';
    ctx.body = text;
  });
  return router;
}
