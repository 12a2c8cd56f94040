/** overseer_settings: defaults, enums by path, approve with an empty list, org-admin changes. */
import t from 'tap';
import overseerSettings from '../../resources/overseer_settings.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { connectAgent } from '../helpers/mcp.ts';

const vigil = await startVigil({ extraFamilies: [overseerSettings] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/overseer_settings`;
const DEFAULTS = { mode: 'observe', action_kinds_requiring_approval: ['rollback', 'config_change'], max_automated_actions_per_hour: 20, notify_on_block: true, updated_at: null };
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);

t.test('reads the defaults, then changes only what is sent', async (t) => {
  const api = await (await vigil.organization()).key();
  t.same((await api.get(PATH)).body.data, DEFAULTS, 'observe, rollback and config_change held in approve mode, 20 an hour, notify');
  vigil.clock.advance(60_000);
  const saved = await api.put(PATH, { mode: 'enforce', max_automated_actions_per_hour: 0 });
  t.equal(saved.status, 200);
  t.same(saved.body.data, { ...DEFAULTS, mode: 'enforce', max_automated_actions_per_hour: 0, updated_at: vigil.clock.now().toISOString() }, '0 is accepted: no automated action at all');
  const kinds = await api.put(PATH, { action_kinds_requiring_approval: ['fix_pull_request'] });
  t.same(kinds.body.data.action_kinds_requiring_approval, ['fix_pull_request'], 'the list is replaced whole');
  t.equal(kinds.body.data.mode, 'enforce', 'omitted fields keep their value');
});

t.test('approve mode with an empty list is allowed: nothing waits for a person', async (t) => {
  const api = await (await vigil.organization()).key();
  const saved = await api.put(PATH, { mode: 'approve', action_kinds_requiring_approval: [] });
  t.equal(saved.status, 200);
  t.match(saved.body.data, { mode: 'approve', action_kinds_requiring_approval: [] });
  t.same((await api.get(PATH)).body.data.action_kinds_requiring_approval, []);
});

t.test('enums and limits are refused by name', async (t) => {
  const api = await (await vigil.organization()).key();
  const cases: [unknown, string[]][] = [
    [{ mode: 'strict' }, ['mode']],
    [{ action_kinds_requiring_approval: ['rollback', 'deploy'] }, ['action_kinds_requiring_approval[1]']],
    [{ action_kinds_requiring_approval: ['scale', 'scale'] }, ['action_kinds_requiring_approval']],
    [{ action_kinds_requiring_approval: 'rollback' }, ['action_kinds_requiring_approval']],
    [{ max_automated_actions_per_hour: 1001 }, ['max_automated_actions_per_hour']],
    [{ mode: 'off', max_automated_actions_per_hour: -1 }, ['max_automated_actions_per_hour']],
  ];
  for (const [body, fields] of cases) {
    const refused = await api.put(PATH, body);
    t.equal(refused.status, 422);
    t.same(fieldsOf(refused), fields, `${JSON.stringify(body)} is refused naming ${fields.join(', ')}`);
  }
  t.same((await api.get(PATH)).body.data, DEFAULTS, 'nothing was stored');
});

t.test('changing needs the org admin role', async (t) => {
  const org = await vigil.organization();
  t.equal((await (await org.key(['api:config_read'])).put(PATH, { mode: 'off' })).body.error, 'read_only_key');
  const member = await connectAgent(vigil.url, (await org.key(['mcp:write'])).token);
  t.notOk((await member.call('get_overseer_settings')).isError, 'a member reads');
  t.equal((await member.call('update_overseer_settings', { mode: 'off' })).body.error, 'forbidden', 'but cannot switch the overseer off');
  await member.close();
  const admin = await connectAgent(vigil.url, (await org.key(['mcp:admin'])).token);
  t.equal((await admin.call('update_overseer_settings', { mode: 'off' })).body.data.mode, 'off');
  await admin.close();
});
