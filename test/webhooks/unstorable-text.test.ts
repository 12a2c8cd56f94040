/**
 * Issue 41: text PostgreSQL cannot store (NUL, a lone UTF-16 surrogate) anywhere a webhook sender can put it — an
 * Events API `dedup_key`, a heartbeat name in the path (`hb%00`), a card id — is refused with a 4xx, never a 500
 * with a stack (senders retry a 5xx for ever). On PGlite and on PostgreSQL.
 */
import t from 'tap';
import { CONFIG, startVigil } from '../helpers/harness.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const org = await vigil.organization();
const api = await org.key();
const UA = { 'user-agent': 'hostile/1.0', 'content-type': 'application/json' };

const post = async (path: string, body: string) => {
  const res = await fetch(`${vigil.url}${path}`, { method: 'POST', headers: UA, body });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
};
const event = (dedupKey: string) =>
  `{"routing_key":"${org.webhookToken}","event_action":"trigger","dedup_key":"${dedupKey}","payload":{"summary":"disk full","source":"db-1","severity":"critical"}}`;

t.test('an Events API dedup_key with NUL or a lone surrogate is a 400 naming it, at both addresses', async (t) => {
  for (const key of ['a\\u0000b', '\\u0000', 'x\\ud800y']) {
    for (const path of ['/v2/enqueue', `/webhooks/events/${org.webhookToken}`]) {
      const answer = await post(path, event(key));
      t.equal(answer.status, 400, `${path} ${key}`);
      t.equal(answer.body?.error, 'invalid_event');
      t.match(String((answer.body?.errors as string[] | undefined)?.join(' ')), /dedup_key/, 'the refusal names dedup_key');
    }
  }
  t.equal((await post('/v2/enqueue', event('fine-key'))).status, 202, 'a clean key is still accepted');
});

t.test('a heartbeat or card named with NUL or a lone surrogate answers 404, by GET and POST', async (t) => {
  t.equal((await api.post(`${CONFIG}/heartbeats`, { name: 'hb', interval_seconds: 60 })).status, 201);
  for (const name of ['hb%00', '%00', 'hb%00x', '%ED%A0%80']) {
    for (const method of ['GET', 'POST']) {
      const res = await fetch(`${vigil.url}/webhooks/heartbeat/${org.webhookToken}/${name}`, { method, headers: UA, ...(method === 'POST' ? { body: 'job output' } : {}) });
      t.equal(res.status, 404, `${method} heartbeat ${name}`);
    }
    const card = await post(`/webhooks/tickets/${org.webhookToken}/${name}/comments`, '{"body":"x"}');
    t.ok(card.status >= 400 && card.status < 500, `a card ${name}: ${card.status}`);
  }
  const ok = await fetch(`${vigil.url}/webhooks/heartbeat/${org.webhookToken}/hb`, { headers: UA });
  t.equal(ok.status, 200, 'the real name still pings');
});
