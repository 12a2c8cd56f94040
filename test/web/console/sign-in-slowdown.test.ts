/**
 * The console's sign-in slowdown (issue 35), on the injected clock: only failures count, waits grow step by step
 * with Retry-After, and guesses at a person's email from elsewhere never keep them out. Addresses are told apart
 * through one trusted proxy's X-Forwarded-For, as behind a load balancer.
 */
import t from 'tap';
import { startVigil } from '../../helpers/harness.ts';
import { browserless, person, PASSWORD } from '../../helpers/console.ts';

const proxied = await startVigil({ trustedProxies: 1 });
t.teardown(() => proxied.close());
const proxiedOrg = await proxied.organization('business');
const from = (address: string) => {
  // a fresh browser each time: a signed-in one would not be shown the form
  return async (email: string, password: string) => {
    const web = browserless(proxied.url);
    const page = await web.get('/login');
    return web.post('/login', { _form: web.field(page.text, '_form'), email, password }, { 'x-forwarded-for': address });
  };
};
const retryAfter = (answer: { headers: Headers }) => Number(answer.headers.get('retry-after'));

t.test('30 successful sign-ins from one address are never slowed', async (t) => {
  const office = from('198.51.100.10');
  const people = [await person(proxied, { [proxiedOrg.id]: 'member' }), await person(proxied, { [proxiedOrg.id]: 'viewer' })];
  const statuses = new Set<number>();
  for (let i = 0; i < 30; i++) statuses.add((await office(people[i % 2]!.email, PASSWORD)).status);
  t.same([...statuses], [303], 'every one signs in');
  // a few typos in between change nothing either
  for (let i = 0; i < 3; i++) t.equal((await office(people[0]!.email, 'a typo in the password')).status, 401);
  t.equal((await office(people[0]!.email, PASSWORD)).status, 303);
});

t.test('failures from one address wait longer and longer, with Retry-After; nothing is checked meanwhile', async (t) => {
  const guesser = from('203.0.113.66');
  const victim = await person(proxied, { [proxiedOrg.id]: 'member' });
  // 20 free failures, each on another email (no account slowdown): no wait
  for (let i = 0; i < 20; i++) {
    const answer = await guesser(`guess-${i}@example.com`, 'wrong password here');
    t.equal(answer.status, 401);
    t.notOk(answer.headers.get('retry-after'), `failure ${i + 1} is free`);
  }
  const waits: number[] = [];
  for (let round = 0; round < 4; round++) {
    const failed = await guesser(`more-${round}@example.com`, 'wrong password here');
    t.equal(failed.status, 401, 'a failure past the free ones says how long the next attempt waits');
    waits.push(retryAfter(failed));
    const early = await guesser(victim.email, PASSWORD);
    t.equal(early.status, 429, 'an attempt within the wait is refused, a correct password too');
    t.equal(retryAfter(early), waits.at(-1));
    t.match(early.text, /Too many failed sign-ins/);
    t.notOk(early.headers.getSetCookie().some((c) => c.startsWith('vigil_session=')), 'no session');
    proxied.clock.advance(waits.at(-1)! * 1000);
  }
  t.same(waits, [1, 2, 4, 8], 'each failure doubles the wait');
  t.equal((await guesser(victim.email, PASSWORD)).status, 303, 'once the wait is over, a correct password signs in');
  t.equal((await from('203.0.113.67')('guess-x@example.com', 'wrong password here')).status, 401, 'another address is counted apart');
});

t.test("guessing a person's password from one address does not keep them out from theirs", async (t) => {
  const victim = await person(proxied, { [proxiedOrg.id]: 'member' });
  const attacker = from('192.0.2.99');
  // ten wrong guesses, each waiting out the slowdown the one before started
  const waits: number[] = [];
  for (let i = 0; i < 10; i++) {
    const early = i > 0 && waits.at(-1)! > 0 ? await attacker(victim.email, `wrong password ${i}`) : null;
    if (early) {
      t.equal(early.status, 429, 'within the wait the guess is not checked');
      proxied.clock.advance(retryAfter(early) * 1000);
    }
    const answer = await attacker(victim.email, `wrong password ${i}`);
    t.equal(answer.status, 401);
    waits.push(retryAfter(answer));
  }
  t.same(waits, [0, 0, 0, 0, 0, 1, 2, 4, 8, 16], 'the account slows down after five failures, doubling');
  const refused = await attacker(victim.email, PASSWORD);
  t.equal(refused.status, 429, 'from the address that failed, even the right password waits');
  t.equal((await from('198.51.100.20')(victim.email, PASSWORD)).status, 303, 'the victim signs in from their own address at once');
  // another address guessing during the account's slowdown is checked once, then waits
  for (let i = 0; i < 6; i++) await attacker(victim.email, 'wrong again');
  const second = from('192.0.2.100');
  t.equal((await second(victim.email, 'wrong password')).status, 401, 'a first failure from a fresh address is checked');
  t.equal((await second(victim.email, PASSWORD)).status, 429, 'then that address waits for the account too');
});

t.test('behind a trusted proxy the address is the one it wrote in X-Forwarded-For, not one the client sent', async (t) => {
  const signIn = async (email: string, forwardedFor: string) => {
    const web = browserless(proxied.url);
    const page = await web.get('/login');
    return (await web.post('/login', { _form: web.field(page.text, '_form'), email, password: 'wrong password here' }, { 'x-forwarded-for': forwardedFor })).status;
  };
  // one client (203.0.113.7 as the proxy saw it), a new account and a new spoofed first entry each time
  const statuses: number[] = [];
  for (let i = 0; i < 21; i++) statuses.push(await signIn(`someone-${i}@example.com`, `10.0.0.${i}, 203.0.113.7`));
  t.same([...new Set(statuses)], [401], '21 failures from one address are answered (the 21st starts a wait)');
  t.equal(await signIn('someone-new@example.com', '10.9.9.9, 203.0.113.7'), 429, 'the next waits: the spoofed entry changes nothing');
  t.equal(await signIn('someone-else@example.com', '203.0.113.8'), 401, 'a client the proxy saw at another address is counted apart');
});
