/** certificate_monitors: host and port as the natural key (host without regard to case), port edges, SNI default, read-only results. */
import t from 'tap';
import certificateMonitors from '../../resources/certificate_monitors.ts';
import { CONFIG, startVigil } from '../helpers/harness.ts';

const vigil = await startVigil({ extraFamilies: [certificateMonitors] });
t.teardown(() => vigil.close());
const PATH = `${CONFIG}/certificate_monitors`;
const fieldsOf = (answer: { body: { errors?: { field: string }[] } }) => (answer.body.errors ?? []).map((e) => e.field);

t.test('defaults; host and sni stored lowercased; an IPv6 host compressed', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, { host: 'API.Example.COM', sni: 'Edge.Example.com' });
  t.equal(made.status, 201);
  t.same(made.body.data, {
    id: made.body.data.id, host: 'api.example.com', port: 443, sni: 'edge.example.com', warn_days: 21, enabled: true,
    expires_at: null, last_checked_at: null, last_status: 'unknown', last_error: null,
    created_at: '2026-03-01T12:00:00.000Z', updated_at: '2026-03-01T12:00:00.000Z',
  });
  // (a documentation address such as 2001:db8::1 is refused: checks never reach reserved ranges)
  const v6 = await api.post(PATH, { host: '2606:4700:0:0::1' });
  t.equal(v6.status, 201);
  t.equal(v6.body.data.host, '2606:4700::1', 'an IPv6 address is kept in its compressed form');
  t.equal(v6.body.data.sni, null, 'sni defaults to null: the host is sent, or nothing for an address');
  t.equal((await api.post(PATH, { host: '2606:4700::1', port: 443 })).status, 409, 'the same address written another way is the same monitor');
});

t.test('one monitor per host and port, without regard to case', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, { host: 'shop.example.com' });
  const dup = await api.post(PATH, { host: 'SHOP.example.com', port: 443, warn_days: 5 });
  t.equal(dup.status, 409);
  t.equal(dup.body.error, 'conflict');
  t.same(dup.body.data, made.body.data, 'the answer carries the existing monitor, unchanged');
  const otherPort = await api.post(PATH, { host: 'shop.example.com', port: 8443 });
  t.equal(otherPort.status, 201, 'another port is another monitor');
  const moved = await api.put(`${PATH}/${otherPort.body.data.id}`, { port: 443 });
  t.equal(moved.status, 409, 'an update onto a held host and port is refused too');
  t.equal(moved.body.data.id, made.body.data.id);
  const renamed = await api.put(`${PATH}/${otherPort.body.data.id}`, { host: 'Shop2.example.com' });
  t.equal(renamed.status, 200);
  t.equal(renamed.body.data.host, 'shop2.example.com');
  const other = await (await vigil.organization()).key();
  t.equal((await other.post(PATH, { host: 'shop.example.com' })).status, 201, 'another organization may watch the same endpoint');
});

t.test('port edges', async (t) => {
  const api = await (await vigil.organization()).key();
  for (const [port, status] of [[1, 201], [65535, 201], [0, 422], [65536, 422], [-443, 422], [443.5, 422], ['443', 422], [null, 422]] as const) {
    const answer = await api.post(PATH, { host: 'edge.example.com', port });
    t.equal(answer.status, status, `port ${JSON.stringify(port)}`);
    if (status === 422) t.same(fieldsOf(answer), ['port']);
    else t.equal(answer.body.data.port, port);
  }
});

t.test('hosts, sni and warn_days that are refused', async (t) => {
  const api = await (await vigil.organization()).key();
  const cases: [string, Record<string, unknown>, string][] = [
    ['a host with a space', { host: 'a b.example.com' }, 'host'],
    ['a URL as host', { host: 'https://example.com' }, 'host'],
    ['a host with a path', { host: 'example.com/x' }, 'host'],
    ['a label starting with a hyphen', { host: '-x.example.com' }, 'host'],
    ['a 254-character host', { host: `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}` }, 'host'],
    ['a dotted quad out of range', { host: '300.1.1.1' }, 'host'],
    ['a bracketed IPv6 address', { host: '[2001:db8::1]' }, 'host'],
    ['an invalid IPv6 address', { host: '2001:db8:::1' }, 'host'],
    ['an empty host', { host: '' }, 'host'],
    ['an IP address as sni', { host: '10.0.0.1', sni: '10.0.0.1' }, 'sni'],
    ['warn_days 0', { host: 'x.example.com', warn_days: 0 }, 'warn_days'],
    ['warn_days 366', { host: 'x.example.com', warn_days: 366 }, 'warn_days'],
  ];
  for (const [name, body, field] of cases) {
    const answer = await api.post(PATH, body);
    t.equal(answer.status, 422, name);
    t.same(fieldsOf(answer), [field], `${name} names ${field}`);
  }
  for (const host of ['localhost', '10.0.0.1', '::1', 'xn--bcher-kva.example', `${'a'.repeat(63)}.example.com`]) {
    t.equal((await api.post(PATH, { host })).status, 201, `${host} is accepted`);
  }
  t.equal((await api.post(PATH, { host: 'w.example.com', warn_days: 365 })).body.data.warn_days, 365);
});

t.test('check results are read-only and never change the ETag', async (t) => {
  const api = await (await vigil.organization()).key();
  const made = await api.post(PATH, { host: 'results.example.com' });
  const path = `${PATH}/${made.body.data.id}`;
  for (const [field, value] of [['expires_at', '2027-01-01T00:00:00Z'], ['last_checked_at', null], ['last_status', 'ok'], ['last_error', 'x']] as const) {
    const created = await api.post(PATH, { host: 'other.example.com', [field]: value });
    t.equal(created.status, 422, `${field} is refused on create`);
    t.same(fieldsOf(created), [field]);
    const updated = await api.put(path, { [field]: value });
    t.equal(updated.status, 422, `${field} is refused on update`);
    t.same(fieldsOf(updated), [field]);
  }
  const db = vigil.running.services.db.em.fork();
  await db.execute(
    `update cfg_certificate_monitors set expires_at = ?, last_checked_at = ?, last_status = 'expiring', last_error = null where id = ?`,
    ['2026-03-15T00:00:00Z', '2026-03-01T11:00:00Z', made.body.data.id],
  );
  const read = await api.get(path);
  t.equal(read.body.data.last_status, 'expiring');
  t.equal(read.body.data.expires_at, '2026-03-15T00:00:00.000Z');
  t.equal(read.body.data.last_checked_at, '2026-03-01T11:00:00.000Z');
  t.equal(read.headers.get('etag'), made.headers.get('etag'), 'a check result is not configuration');
  const changed = await api.put(path, { warn_days: 7 }, { 'if-match': read.headers.get('etag')! });
  t.equal(changed.status, 200, 'an ETag read before a check still writes');
  t.equal(changed.body.data.last_status, 'expiring', 'a configuration change keeps the results');
});
