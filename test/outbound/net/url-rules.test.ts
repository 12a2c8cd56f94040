/** The save-time checker on its own (pure): the forms the URL parser normalises, and what each policy lets through. */
import t from 'tap';
import { addressPolicy } from '../../../outbound/net/addresses.ts';
import { targetRefusal } from '../../../outbound/net/url-rules.ts';

const strict = targetRefusal({ outbound: addressPolicy(), check: { loopback: false, internal: true } });
const outbound = { policy: 'outbound', form: 'url' } as const;
const check = { policy: 'check', form: 'url' } as const;

t.test('addresses written in another notation are judged as the address they are', async (t) => {
  const cases: [string, RegExp][] = [
    ['https://2130706433/', /loopback/], // 127.0.0.1 in decimal
    ['https://0x7f.0.0.1/', /loopback/], // hex
    ['https://0177.0.0.1/', /loopback/], // octal
    ['https://127.1/', /loopback/], // shortened
    ['https://[::ffff:127.0.0.1]/', /loopback/], // IPv4-mapped
    ['https://LOCALHOST./', /loopback/], // a name that is always this machine
    ['https://api.localhost/', /loopback/],
    ['https://[::ffff:169.254.169.254]/', /cloud metadata \(IPv4-mapped/],
    ['https://[64:ff9b::a9fe:a9fe]/', /cloud metadata \(NAT64/], // NAT64
    ['https://0xa9.0xfe.0xa9.0xfe/', /cloud metadata/],
  ];
  for (const [value, why] of cases) t.match(strict(value, outbound), why, value);
});

t.test('a name is not resolved when saved; plain http to one is refused for outbound targets only', async (t) => {
  t.equal(strict('https://internal.example/', outbound), null);
  t.match(strict('http://internal.example/', outbound), /must be an https URL/);
  t.equal(strict('http://internal.example/', check), null, 'a check may probe plain http');
  t.match(strict('gopher://internal.example/', check), /must be an http or https URL/);
});

t.test('a host with a port, and a bare IPv6 address', async (t) => {
  t.match(strict('127.0.0.1:5000', { policy: 'outbound', form: 'host' }), /loopback/);
  t.match(strict('fe80::1', { policy: 'check', form: 'host' }), /link-local/);
  t.equal(strict('registry.example.com:5000', { policy: 'outbound', form: 'host' }), null);
});

t.test('an allow-listed network accepts its addresses, over plain http too', async (t) => {
  const listed = targetRefusal({ outbound: addressPolicy(['10.0.0.0/8', 'fd00::/8', '169.254.0.0/16']), check: { loopback: false, internal: true } });
  t.equal(listed('http://10.1.2.3:8000/v1', outbound), null);
  t.equal(listed('https://[fd00::1]/', outbound), null);
  t.match(listed('https://192.168.1.1/', outbound), /private/);
  t.match(listed('https://169.254.169.254/', outbound), /cloud metadata/, 'the metadata address never, even inside a listed network');
  t.equal(listed('https://169.254.1.1/', outbound), null, 'while the rest of the listed network is reachable');
});
