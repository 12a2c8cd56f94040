/** paging_providers: defaults, tokens never answered, a token and what it belongs to set together, an org admin's to change. */
import t from 'tap';
import pagingProviders from '../../resources/paging_providers.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';

const vigil = await startVigil({ extraFamilies: [pagingProviders] });
t.teardown(() => vigil.close());

const PATH = `${CONFIG}/paging_providers`;
const SID = `AC${'a1'.repeat(16)}`;
const TOKEN = 'twilio-secret-token-0123456789';
const PUSHOVER = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';
const NTFY = 'tk_secretntfytoken0123456789';
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field).sort();

t.test('defaults: nothing set', async (t) => {
  const api = await (await vigil.organization()).key();
  const read = await api.get(PATH);
  t.equal(read.status, 200);
  t.same(read.body.data, {
    twilio_account_sid: null, twilio_auth_token_set: false, twilio_from: null, pushover_app_token_set: false,
    ntfy_server: null, ntfy_access_token_set: false, webhook_signing_secret_set: false, updated_at: null,
  });
});

t.test('tokens are stored, never answered, and an omitted one is kept', async (t) => {
  const api = await (await vigil.organization()).key();
  const saved = await api.put(PATH, { twilio_account_sid: SID, twilio_auth_token: TOKEN, twilio_from: '+14155552671', pushover_app_token: PUSHOVER, ntfy_server: 'https://ntfy.example.com', ntfy_access_token: NTFY });
  t.equal(saved.status, 200);
  t.match(saved.body.data, { twilio_account_sid: SID, twilio_auth_token_set: true, pushover_app_token_set: true, ntfy_access_token_set: true });
  for (const answer of [saved.body, (await api.get(PATH)).body, (await api.get(`${CONFIG}/audit_log`)).body]) {
    const text = JSON.stringify(answer);
    t.notOk(text.includes(TOKEN) || text.includes(PUSHOVER) || text.includes(NTFY), 'no token in the answer');
  }
  const kept = await api.put(PATH, { twilio_from: `MG${'b2'.repeat(16)}` });
  t.equal(kept.status, 200);
  t.equal(kept.body.data.twilio_auth_token_set, true, 'an omitted token is kept');
  const cleared = await api.put(PATH, { ntfy_server: null, ntfy_access_token: null });
  t.equal(cleared.status, 200);
  t.equal(cleared.body.data.ntfy_access_token_set, false);
});

t.test('a token and the account or server it belongs to are set together', async (t) => {
  const org = await vigil.organization();
  const api = await org.key();
  const sidOnly = await api.put(PATH, { twilio_account_sid: SID });
  t.equal(sidOnly.status, 422);
  t.same(fieldsOf(sidOnly), ['twilio_auth_token']);
  const tokenOnly = await api.put(PATH, { ntfy_access_token: NTFY });
  t.equal(tokenOnly.status, 422);
  t.same(fieldsOf(tokenOnly), ['ntfy_server']);
  const internal = await api.put(PATH, { ntfy_server: 'https://10.1.2.3', ntfy_access_token: NTFY });
  t.equal(internal.status, 422, 'an ntfy server on the internal network is refused when saved');
  t.same(fieldsOf(internal), ['ntfy_server']);
  t.same((await api.get(PATH)).body.data.twilio_account_sid, null, 'nothing of a refusal was stored');
});

t.test('only an org admin changes them', async (t) => {
  const org = await vigil.organization();
  const viewer = await org.key(['api:config_read']);
  const put = await viewer.put(PATH, { twilio_from: '+14155552671' });
  t.equal(put.status, 403);
  t.equal((await viewer.get(PATH)).status, 200, 'a viewer reads them (no token is answered)');
});
