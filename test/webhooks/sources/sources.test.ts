/**
 * A new source is one file and one list entry: every source in webhooks/sources/index.ts has all its facts, and
 * each fact reaches what users touch without any other table to edit — a ready-made URL, its body limit (413),
 * its signing refusals (401), and request_signing's accepted sources, schemes and refusals.
 */
import http from 'node:http';
import t from 'tap';
import type { Organization } from '../../../engine/auth/caller.ts';
import { checkSignature } from '../../../webhooks/signing.ts';
import { ALERT_SOURCES } from '../../../domain/alerts/event.ts';
import { SEGMENTS, SOURCES, sourceAt, WEBHOOK_SOURCES } from '../../../webhooks/sources/index.ts';
import { CONFIG, startVigil } from '../../helpers/harness.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());

const UA = { 'user-agent': 'vigil-tests/1.0' };
const SIGNING = `${CONFIG}/request_signing`;

/** the segments of the spec's "Inbound webhooks" table */
const SPEC_SEGMENTS = [
  'metric-dashboard', 'incident-pager', 'monitoring-a', 'monitoring-b', 'cloud-alarms', 'cloud-audit', 'deployments', 'code-host', 'tickets',
  'issue-tracker', 'sprint-tracker', 'fix-requests',
];

/** sources whose secret is saved as a request_signing row */
const SIGNABLE = SOURCES.filter((s) => s.signing && !s.signing.savedElsewhere);

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${vigil.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...UA, ...headers }, body });
  return { status: res.status, body: await res.json() };
}

/** Declares a body of `length` bytes and sends none of it: only the Content-Length can answer. */
function declareOnly(path: string, length: number): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${vigil.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(length), ...UA } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode!, body: JSON.parse(text) });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

t.test('the list: one source per segment, each with every fact', async (t) => {
  t.equal(new Set(SEGMENTS).size, SOURCES.length, 'no segment listed twice');
  for (const segment of SPEC_SEGMENTS) t.ok(sourceAt(segment), `the spec's ${segment} is served`);
  for (const source of SOURCES) {
    t.match(source.segment, /^[a-z][a-z0-9-]*$/, `${source.segment}: a URL segment`);
    t.equal(sourceAt(source.segment), source);
    t.ok(source.product.trim().length > 0, `${source.segment}: names its product`);
    t.ok(Number.isInteger(source.bodyLimit) && source.bodyLimit >= 1024, `${source.segment}: a body limit in bytes`);
    t.equal(typeof source.handler({}), 'function', `${source.segment}: a handler`);
    if (source.signing) {
      t.ok(source.signing.scheme && source.signing.notes && source.signing.headers.length > 0, `${source.segment}: scheme, notes and headers`);
      t.equal(typeof source.signing.verify, 'function');
    }
  }
  t.same(SOURCES.filter((s) => s.parser).map((s) => s.segment).sort(), [...ALERT_SOURCES].sort(), 'every alert source has its parser, and only they');
  t.equal(sourceAt('__proto__'), undefined);
  t.equal(sourceAt('constructor'), undefined);
  t.same(WEBHOOK_SOURCES.map((s) => s.segment), SEGMENTS, 'the engine is told of every source');
  t.same(WEBHOOK_SOURCES.filter((s) => s.signing).map((s) => s.segment), SIGNABLE.map((s) => s.segment), 'and which can be signed with a request_signing secret');
});

t.test('every source gets a ready-made URL', async (t) => {
  const org = await vigil.organization();
  const view = await vigil.operator.get(`/api/admin/v1/organizations/${org.id}`);
  t.same(Object.keys(view.body.webhook_urls).sort(), [...SEGMENTS].sort());
  for (const segment of SEGMENTS) t.equal(view.body.webhook_urls[segment], `${vigil.url}/webhooks/${segment}/${org.webhookToken}`);
});

t.test('every source refuses a body over its limit with 413 naming it, before reading a byte', async (t) => {
  const org = await vigil.organization();
  for (const source of SOURCES) {
    const refused = await declareOnly(`/webhooks/${source.segment}/${org.webhookToken}`, source.bodyLimit + 1);
    t.equal(refused.status, 413, `${source.segment}: 413`);
    t.same(refused.body, { error: 'payload_too_large', message: `The body is larger than the ${source.bodyLimit} bytes ${source.segment} accepts.` });
  }
});

t.test('every signed source: with a saved secret, an unsigned or wrongly signed request is refused naming its scheme and headers', async (t) => {
  const { services } = vigil.running;
  const org = await vigil.organization();
  const organization: Organization = { id: org.id, name: 'o', plan: 'business', disabled: false, features: {}, flags: {} };
  const runbook: Organization = { ...organization, flags: { automatic_runbook_approved: true } };
  const sealed = services.secrets.seal('a-saved-signing-secret-0001');
  const signed = SOURCES.filter((s) => s.signing);
  t.ok(signed.length >= SIGNABLE.length + 2, 'the signable sources and the trackers');
  for (const source of signed) {
    const signing = source.signing!;
    const unsigned = checkSignature(services, organization, source.segment, signing, sealed, Buffer.from('{}'), () => undefined);
    t.equal(unsigned.refusal?.status, 401, `${source.segment}: unsigned`);
    t.match(unsigned.refusal?.body.message, signing.scheme, `${source.segment}: names the scheme`);
    for (const header of signing.headers) t.match(unsigned.refusal?.body.message, header, `${source.segment}: names ${header}`);
    if (signing.savedElsewhere) t.match(unsigned.refusal?.body.message, signing.savedElsewhere.savedIn, `${source.segment}: says where the secret is saved`);
    const wrong = checkSignature(services, organization, source.segment, signing, sealed, Buffer.from('{}'), () => 'sha256=00, v1=00');
    t.equal(wrong.refusal?.status, 401, `${source.segment}: wrongly signed`);
    const without = checkSignature(services, organization, source.segment, signing, null, Buffer.from('{}'), () => undefined);
    if (signing.alwaysSigned) {
      // chat: a press acts as a member, so even without a secret the token alone is never enough (refused before the rate limit)
      t.match(without.refusal, { status: 401, body: { message: signing.alwaysSigned } }, `${source.segment}: without a secret, still refused`);
      continue;
    }
    t.same(without, { refusal: null, signed: false }, `${source.segment}: without a secret the token alone is enough`);
    const underRunbook = checkSignature(services, runbook, source.segment, signing, null, Buffer.from('{}'), () => undefined);
    if (signing.runbookSigned) t.match(underRunbook.refusal, { status: 401, body: { message: /approved runbook/ } }, `${source.segment}: must be signed under an automatic runbook`);
    else t.same(underRunbook, { refusal: null, signed: false }, `${source.segment}: the runbook does not require it`);
  }
  t.same(signed.filter((s) => s.signing!.runbookSigned).map((s) => s.segment), ['metric-dashboard', 'incident-pager', 'monitoring-a', 'monitoring-b'], 'the spec\'s dashboard, pager and monitoring sources');
  t.same(SOURCES.filter((s) => !s.signing).map((s) => checkSignature(services, organization, s.segment, null, sealed, Buffer.from('{}'), () => undefined)),
    SOURCES.filter((s) => !s.signing).map(() => ({ refusal: null, signed: false })), 'a source without signing takes the token alone');
});

t.test('request_signing accepts exactly the signable sources, answers their scheme, and the router checks them', async (t) => {
  const org = await vigil.organization();
  await vigil.operator.patch(`/api/admin/v1/organizations/${org.id}`, { flags: { signing_enabled_sources: true } });
  const api = await org.key(['api:admin']);
  for (const source of SOURCES) {
    const made = await api.post(SIGNING, { source: source.segment, secret: 'a-saved-signing-secret-0001' });
    if (!source.signing || source.signing.savedElsewhere) {
      t.equal(made.status, 422, `${source.segment}: no request_signing secret`);
      t.same(made.body.errors.map((e: any) => e.field), ['source']);
      for (const s of SIGNABLE) t.match(made.body.errors[0].message, `${s.segment} (${s.signing!.scheme}: ${s.signing!.notes})`, `${source.segment}: the refusal lists ${s.segment}`);
      continue;
    }
    t.equal(made.status, 201, `${source.segment}: saved`);
    t.equal(made.body.data.scheme, source.signing.scheme);
    t.equal(made.body.data.signature_header, source.signing.headers[0]);
    const unsigned = await post(`/webhooks/${source.segment}/${org.webhookToken}`, '{}');
    t.equal(unsigned.status, 401, `${source.segment}: unsigned is refused`);
    t.match(unsigned.body.message, source.signing.scheme);
  }
  const unknown = await api.post(SIGNING, { source: 'no-such-source', secret: 'a-saved-signing-secret-0001' });
  t.equal(unknown.status, 422);
  t.notMatch(JSON.stringify(unknown.body), /no-such-source/, 'the refusal does not echo the value sent');
});
