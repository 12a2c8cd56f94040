/**
 * Issue 41: failed operator authentications are limited per client address, as sign-in is: after
 * OPERATOR_FAILURE_LIMIT.points wrong tokens every request from that address is 429 with Retry-After, the right token
 * included (a guess that happens to be right gains nothing); another address is not held back.
 */
import t from 'tap';
import { OPERATOR_FAILURE_LIMIT } from '../../engine/http/operator-api.ts';
import { client, OPERATOR_TOKEN, startVigil } from '../helpers/harness.ts';

// one trusted proxy: the tests choose the client's address with X-Forwarded-For
const vigil = await startVigil({ trustedProxies: 1 });
t.teardown(() => vigil.close());
const ORGS = '/api/admin/v1/organizations';
const from = (address: string) => ({ 'x-forwarded-for': address });

t.test('wrong operator tokens from one address end in 429 with Retry-After, for the right token too', async (t) => {
  const guesser = client(vigil.url, 'vigil_op_wrong-guess-0000000000000000000000');
  for (let i = 0; i < OPERATOR_FAILURE_LIMIT.points; i++) {
    const answer = await guesser.get(ORGS, from('203.0.113.7'));
    if (answer.status !== 401) return t.fail(`guess ${i + 1} answered ${answer.status}`);
  }
  const over = await guesser.get(ORGS, from('203.0.113.7'));
  t.equal(over.status, 429, 'the next wrong guess is refused as too many');
  t.equal(over.body.error, 'rate_limited');
  t.ok(Number(over.headers.get('retry-after')) > 0, 'Retry-After says how long');
  const right = await client(vigil.url, OPERATOR_TOKEN).get(ORGS, from('203.0.113.7'));
  t.equal(right.status, 429, 'a right token from that address waits too');
  const metrics = await client(vigil.url, OPERATOR_TOKEN).get('/metrics', from('203.0.113.7'));
  t.equal(metrics.status, 429, '/metrics behind the operator token too');
  const elsewhere = await client(vigil.url, OPERATOR_TOKEN).get(ORGS, from('198.51.100.9'));
  t.equal(elsewhere.status, 200, 'another address is not held back');
  const noToken = await client(vigil.url).get(ORGS, from('198.51.100.10'));
  t.equal(noToken.status, 401, 'a missing token is a failure like a wrong one');
});

t.test('right tokens are never counted', async (t) => {
  const operator = client(vigil.url, OPERATOR_TOKEN);
  for (let i = 0; i < OPERATOR_FAILURE_LIMIT.points + 5; i++) {
    const answer = await operator.get(ORGS, from('192.0.2.44'));
    if (answer.status !== 200) return t.fail(`request ${i + 1} answered ${answer.status}`);
  }
  t.pass('every request with the right token answered 200');
});
