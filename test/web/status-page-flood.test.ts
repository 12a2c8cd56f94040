/**
 * Issue 41: the status page's subscribe form cannot be flooded. One client address may make SUBSCRIBE_LIMIT
 * subscribe requests an hour (then 429 with Retry-After; another address is not held back), so no one client can
 * spend a page's hourly confirmations; pending rows the quota held back go after PENDING_HOURS; and `+tags` do not
 * multiply the one confirmation a mailbox gets per RESEND_MINUTES.
 */
import t from 'tap';
import { PENDING_HOURS, SUBSCRIBE_LIMIT } from '../../domain/status-page/subscribers.ts';
import { clientOf } from '../../engine/http/client-address.ts';
import { sqlExecutor } from '../../engine/persistence/sql.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';
import { drainJobs, waitFor } from '../helpers/jobs.ts';
import { startSmtp } from '../helpers/smtp.ts';

const smtp = await startSmtp();
t.teardown(() => smtp.close());
// one trusted proxy: each test chooses its client address with X-Forwarded-For
const vigil = await startVigil({ trustedProxies: 1, email: { smtpUrl: smtp.url, from: 'Acme status <status@acme.example>' } });
t.teardown(() => vigil.close());
const HOUR = 3_600_000;

const org = await vigil.organization();
const api = await org.key(['api:admin']);
const published = await api.put(`${CONFIG}/status_page_settings`, { title: 'Flood status', slug: 'flood', public: true });
if (published.status !== 200) throw new Error(JSON.stringify(published.body));

const subscribe = (email: string, from: string) =>
  fetch(`${vigil.url}/status/flood/subscribe`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': from }, body: new URLSearchParams({ email }),
  }).then(async (res) => ({ status: res.status, retryAfter: res.headers.get('retry-after'), text: await res.text() }));
const pending = async () => ((await api.get(`${CONFIG}/status_page_subscribers?status=pending`)).body.data as { email: string }[]).map((s) => s.email);

t.test('one client address: SUBSCRIBE_LIMIT requests an hour, then 429; another address goes on', async (t) => {
  for (let i = 0; i < SUBSCRIBE_LIMIT.points; i++) {
    const answer = await subscribe(`flood-${i}@example.com`, '203.0.113.5');
    if (answer.status !== 200) return t.fail(`request ${i + 1} answered ${answer.status}`);
  }
  const over = await subscribe('flood-over@example.com', '203.0.113.5');
  t.equal(over.status, 429, 'the next request from that address is refused');
  t.ok(Number(over.retryAfter) > 0, 'with Retry-After');
  t.notOk((await pending()).includes('flood-over@example.com'), 'and stores nothing');
  t.equal((await subscribe('flood-v6@example.com', '2001:db8:1:2::7')).status, 200, 'another address is not held back');
  t.equal(clientOf('2001:db8:1:2:aaaa::9'), clientOf('2001:db8:1:2::7'), 'an IPv6 client is its /64');
  t.equal((await subscribe('real@example.com', '198.51.100.20')).status, 200, 'a real subscriber elsewhere is served');
  await waitFor(() => smtp.messages.some((m) => m.to.includes('real@example.com')), 'and mailed');
});

t.test('a pending row never mailed goes after PENDING_HOURS', async (t) => {
  // a row as the page's hourly quota leaves it: pending, no confirmation sent
  await sqlExecutor(vigil.running.services.db)(
    'insert into status_page_subscribers (id, organization_id, email, created_at) values (gen_random_uuid(), ?, ?, ?)',
    [org.id, 'held-back@example.com', vigil.clock.now()],
  );
  t.ok((await pending()).includes('held-back@example.com'));
  vigil.clock.advance((PENDING_HOURS - 1) * HOUR);
  await subscribe('later-1@example.com', '198.51.100.30');
  t.ok((await pending()).includes('held-back@example.com'), 'kept before its time');
  vigil.clock.advance(2 * HOUR);
  await subscribe('later-2@example.com', '198.51.100.31');
  t.notOk((await pending()).includes('held-back@example.com'), 'gone after it');
});

t.test('+tags reach one mailbox: one confirmation per RESEND_MINUTES for all of them', async (t) => {
  for (const [i, email] of ['victim+1@example.com', 'victim+2@example.com', 'Victim+three@Example.com', 'victim@example.com'].entries()) {
    t.equal((await subscribe(email, `192.0.2.${10 + i}`)).status, 200);
  }
  await drainJobs(vigil.running.services);
  await waitFor(() => smtp.messages.some((m) => /victim/i.test(m.to.join(' '))), 'the first confirmation');
  await drainJobs(vigil.running.services);
  t.equal(smtp.messages.filter((m) => /victim/i.test(m.to.join(' '))).length, 1, 'one mail to the mailbox');
});
