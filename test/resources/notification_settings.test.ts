/** notification_settings: defaults, channels merged per event kind, quiet hours, recipients, the org admin role. */
import t from 'tap';
import notificationSettings from '../../resources/notification_settings.ts';
import outboundConfigs from '../../resources/outbound_configs.ts';
import outboundRules from '../../resources/outbound_rules.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil({ extraFamilies: [outboundConfigs, outboundRules, notificationSettings] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/notification_settings`;
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field).sort();
const BOTH = ['chat', 'outbound'];
const ALL = ['email', 'chat', 'outbound'];
const DEFAULT_CHANNELS = {
  'alert.fired': ALL, 'alert.resolved': BOTH, 'alert.acknowledged': BOTH, 'incident.opened': ALL, 'incident.closed': BOTH,
  'card.created': BOTH, 'card.updated': BOTH, 'deployment.recorded': BOTH, 'fix_request.finished': ALL,
};

t.test('defaults before anything is stored', async (t) => {
  const api = await (await vigil.organization()).key();
  const read = await api.get(PATH);
  t.equal(read.status, 200);
  t.same(read.body.data, { channels: DEFAULT_CHANNELS, email_recipients: [], quiet_hours: null, digest: 'off', digest_hour: 9, updated_at: null });
});

t.test('channels merge per event kind; [] silences one; unknown kinds and channels are named', async (t) => {
  const api = await (await vigil.organization()).key();
  const first = await api.put(PATH, { channels: { 'alert.fired': ['chat'], 'card.updated': [] } });
  t.equal(first.status, 200);
  t.same(first.body.data.channels, { ...DEFAULT_CHANNELS, 'alert.fired': ['chat'], 'card.updated': [] });
  const second = await api.put(PATH, { channels: { 'deployment.recorded': ['outbound'] } });
  t.same(second.body.data.channels, { ...DEFAULT_CHANNELS, 'alert.fired': ['chat'], 'card.updated': [], 'deployment.recorded': ['outbound'] }, 'kinds not named keep their channels');

  const unknown = await api.put(PATH, { channels: { 'alert.exploded': ['email'], 'alert.fired': ['chat'], teams: [] } });
  t.equal(unknown.status, 422);
  t.same(fieldsOf(unknown), ['channels.alert.exploded', 'channels.teams'], 'each unknown event kind is named');
  t.same(fieldsOf(await api.put(PATH, { channels: { 'incident.opened': ['email', 'sms'] } })), ['channels.incident.opened[1]']);
  t.same(fieldsOf(await api.put(PATH, { channels: { 'incident.opened': ['email', 'email'] } })), ['channels.incident.opened']);
  t.same((await api.get(PATH)).body.data.channels, second.body.data.channels, 'refusals stored nothing');
});

t.test('quiet hours: HH:MM, an IANA zone, start and end that differ; overnight allowed; null removes', async (t) => {
  const api = await (await vigil.organization()).key();
  const cases: [unknown, string[]][] = [
    [{ start: '22:00', end: '22:00', timezone: 'UTC' }, ['quiet_hours.end']],
    [{ start: '24:00', end: '07:00', timezone: 'UTC' }, ['quiet_hours', 'quiet_hours.start']],
    [{ start: '7:00', end: '09:60', timezone: 'UTC' }, ['quiet_hours', 'quiet_hours.end', 'quiet_hours.start']],
    [{ start: '22:00', end: '07:00', timezone: 'Mars/Olympus' }, ['quiet_hours.timezone']],
    [{ start: '22:00', end: '07:00', timezone: 'CET; drop' }, ['quiet_hours.timezone']],
    [{ start: '22:00', end: '07:00' }, ['quiet_hours', 'quiet_hours.timezone']],
    [{ start: '22:00', end: '07:00', timezone: 'UTC', days: ['sat'] }, ['quiet_hours', 'quiet_hours.days']],
    ['22:00-07:00', ['quiet_hours']],
  ];
  for (const [quiet_hours, fields] of cases) {
    const refused = await api.put(PATH, { quiet_hours });
    t.equal(refused.status, 422, JSON.stringify(quiet_hours));
    t.same(fieldsOf(refused), fields);
  }
  const overnight = await api.put(PATH, { quiet_hours: { start: '22:30', end: '06:45', timezone: 'America/New_York' } });
  t.equal(overnight.status, 200, 'an end before the start spans midnight');
  t.same(overnight.body.data.quiet_hours, { start: '22:30', end: '06:45', timezone: 'America/New_York' });
  t.equal((await api.put(PATH, { quiet_hours: { start: '00:00', end: '23:59', timezone: 'UTC' } })).status, 200);
  t.equal((await api.put(PATH, { quiet_hours: null })).body.data.quiet_hours, null, 'null removes quiet hours');
});

t.test('recipients: emails only, stored lowercased, none repeated, at most 50; digest', async (t) => {
  const api = await (await vigil.organization()).key();
  const stored = await api.put(PATH, { email_recipients: ['OnCall@Acme.example', 'sre@acme.example'] });
  t.same(stored.body.data.email_recipients, ['oncall@acme.example', 'sre@acme.example']);
  t.same(fieldsOf(await api.put(PATH, { email_recipients: ['ops@acme.example', 'OPS@acme.example'] })), ['email_recipients'], 'a repeat in other case is refused');
  t.same(fieldsOf(await api.put(PATH, { email_recipients: ['ok@acme.example', 'not an email'] })), ['email_recipients[1]']);
  const fifty = Array.from({ length: 50 }, (_, i) => `p${i}@acme.example`);
  t.equal((await api.put(PATH, { email_recipients: fifty })).status, 200, '50 recipients are accepted');
  t.same(fieldsOf(await api.put(PATH, { email_recipients: [...fifty, 'p50@acme.example'] })), ['email_recipients'], '51 are refused');
  t.same((await api.put(PATH, { email_recipients: [] })).body.data.email_recipients, [], 'the list is replaced whole');

  const daily = await api.put(PATH, { digest: 'daily', digest_hour: 0 });
  t.same([daily.body.data.digest, daily.body.data.digest_hour], ['daily', 0]);
  const hourly = await api.put(PATH, { digest: 'hourly' });
  t.equal(hourly.body.data.digest_hour, 0, 'digest_hour is kept while unused');
  t.same(fieldsOf(await api.put(PATH, { digest_hour: 24 })), ['digest_hour']);
  t.same(fieldsOf(await api.put(PATH, { digest: 'weekly' })), ['digest']);
});

t.test('changing needs the org admin role', async (t) => {
  const org = await vigil.organization();
  const member = await connectAgent(vigil.url, (await org.key(['mcp:write'])).token);
  const admin = await connectAgent(vigil.url, (await org.key(['mcp:admin'])).token);
  t.teardown(() => Promise.all([member.close(), admin.close()]));
  t.equal((await member.call('get_notification_settings')).isError, false, 'a member reads');
  const denied = await member.call('update_notification_settings', { digest: 'daily' });
  t.equal(denied.isError, true);
  t.equal(denied.body.error, 'forbidden');
  const allowed = await admin.call('update_notification_settings', { digest: 'daily' });
  t.equal(allowed.isError, false);
  t.equal(allowed.body.data.digest, 'daily');
});
