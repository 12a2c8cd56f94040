/**
 * The pure parts of fix requests (which files the provider is shown, how its answer is read) and the code-host
 * client's rules that the end-to-end tests do not reach: same-origin redirects followed, an unreachable host. Its
 * deployment settings (VIGIL_CODE_HOST_*) are read in bin/env.ts: test/cli/env.test.ts.
 */
import { generateKeyPairSync } from 'node:crypto';
import t from 'tap';
import { ManualClock } from '../../../engine/clock.ts';
import type { Services } from '../../../engine/services.ts';
import { codeHostClient, CodeHostError } from '../../../outbound/net/code-host-app.ts';
import { chooseFiles, readProposal, UnusableAnswer } from '../../../domain/fixes/patch.ts';
import { startFakeGitHub } from '../../helpers/fake-github.ts';

t.test('chooseFiles: named paths first, then name matches; vendored, lock and binary files skipped; a README when nothing matches', async (t) => {
  const tree = ['src/payments/fee.ts', 'src/cart.ts', 'node_modules/fee/index.js', 'package-lock.json', 'assets/fee.png', 'README.md', 'lib/checkout/api.go', 'docs/fee-history.md']
    .map((path) => ({ path, size: 100 }));
  t.same(chooseFiles(tree, 'The fee in src/payments/fee.ts is off by one', null).slice(0, 2), ['src/payments/fee.ts', 'docs/fee-history.md']);
  t.same(chooseFiles(tree, 'checkout api times out', 'checkout')[0], 'lib/checkout/api.go');
  t.same(chooseFiles(tree, 'something vague', null), ['README.md']);
  t.notOk(chooseFiles(tree, 'fee fee fee', null).some((p) => p.includes('node_modules') || p.endsWith('.png') || p.endsWith('lock.json')));
  t.same(chooseFiles([{ path: 'big.ts', size: 10_000_000 }], 'big.ts', null), [], 'too large to show');
});

t.test('readProposal: a decline, a patch, a fenced answer; refusals that never repeat the answer', async (t) => {
  const shown = [{ path: 'a.ts', content: 'x = 1' }];
  const existing = new Set(['a.ts', 'b.ts']);
  t.same(readProposal('{"decision":"decline","reason":"unclear"}', shown, existing), { decision: 'decline', reason: 'unclear' });
  t.same(readProposal('{"decision":"decline"}', shown, existing), { decision: 'decline', reason: 'the provider gave no reason' });
  const patch = readProposal('```json\n{"decision":"patch","title":" Fix\\n x ","body":"b","files":[{"path":"a.ts","content":"x = 2"},{"path":"new/c.ts","content":"y"}]}\n```', shown, existing);
  t.same(patch, { decision: 'patch', title: 'Fix x', body: 'b', files: [{ path: 'a.ts', content: 'x = 2' }, { path: 'new/c.ts', content: 'y' }] });
  const refusals: [string, RegExp][] = [
    ['not json at all', /not JSON/],
    ['[1,2]', /not a JSON object/],
    ['{"decision":"maybe"}', /no decision/],
    ['{"decision":"patch","files":[{"path":"a.ts","content":"x"}]}', /no title/],
    ['{"decision":"patch","title":"t","files":[]}', /no files/],
    ['{"decision":"patch","title":"t","files":[{"path":"/etc/passwd","content":"x"}]}', /relative path/],
    ['{"decision":"patch","title":"t","files":[{"path":".git/config","content":"x"}]}', /relative path/],
    ['{"decision":"patch","title":"t","files":[{"path":"a.ts","content":1}]}', /not a string/],
    ['{"decision":"patch","title":"t","files":[{"path":"a.ts","content":"1"},{"path":"a.ts","content":"2"}]}', /appears twice/],
    ['{"decision":"patch","title":"t","files":[{"path":"b.ts","content":"x"}]}', /not shown/],
  ];
  for (const [content, message] of refusals) {
    t.throws(() => readProposal(content, shown, existing), UnusableAnswer);
    t.throws(() => readProposal(content, shown, existing), { message }, content);
  }
});

t.test('the client: same-origin redirects followed with the token, other hosts refused, timeouts, a bad key', async (t) => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  const gh = await startFakeGitHub({ appId: '7', publicKey, installations: ['1'], now: () => clock.now().getTime() });
  gh.addRepo('acme/moved', { 'a.txt': 'hi' });
  t.teardown(() => gh.close());
  const services = (codeHost: Record<string, unknown>) => ({ clock, config: { codeHost, outbound: { allowLoopback: true } } }) as unknown as Services;
  const host = codeHostClient(services({ apiUrl: gh.url, appId: '7', privateKey, timeoutMs: 500 }), '1');

  gh.override = (r) => (r.path === '/repos/acme/old-name/git/ref/heads/main' ? { status: 301, headers: { location: `${gh.url}/repos/acme/moved/git/ref/heads/main` } } : undefined);
  const moved = await host.request('GET', '/repos/acme/old-name/git/ref/heads/main');
  t.equal(moved.status, 200, 'a same-origin redirect is followed');
  t.match(gh.requests.at(-1), { path: '/repos/acme/moved/git/ref/heads/main', authorization: /^Bearer ghs_/ });

  gh.override = () => ({ status: 302, headers: { location: 'http://127.0.0.2:1/steal' } });
  await t.rejects(host.request('GET', '/repos/acme/moved/git/ref/heads/main'), { kind: 'redirect', message: /another host/ });
  gh.override = () => ({ status: 500, body: { message: 'x'.repeat(500) } });
  const failed = await host.request('GET', '/repos/acme/moved/pulls').catch((e: CodeHostError) => e);
  t.match(failed, { kind: 'http', status: 500, message: /HTTP 500: x+…\.$/ });
  t.ok((failed as CodeHostError).message.length < 320, 'the code host\'s message is cut short');
  gh.override = undefined;
  gh.delayMs = 1500;
  await t.rejects(host.request('GET', '/repos/acme/moved/pulls'), { kind: 'unreachable', message: 'The code host could not be reached for GET /repos/acme/moved/pulls.' });
  gh.delayMs = 0;

  const bad = codeHostClient(services({ apiUrl: gh.url, appId: '7', privateKey: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' }), '2');
  await t.rejects(bad.request('GET', '/repos/acme/moved/pulls'), { kind: 'credentials', message: /could not sign/ });
  t.throws(() => codeHostClient(services({ apiUrl: gh.url }), '1'), { kind: 'not_configured', message: /no code-host app configured/ });
  const wrongApp = codeHostClient(services({ apiUrl: gh.url, appId: '8', privateKey }), '1');
  await t.rejects(wrongApp.request('GET', '/repos/acme/moved/pulls'), { kind: 'credentials', status: 401, message: /VIGIL_CODE_HOST_APP_ID/ });
});
