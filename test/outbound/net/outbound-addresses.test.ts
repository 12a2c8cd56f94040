/**
 * The outbound address policy (outbound/net/addresses.ts), table-driven: every class refused by default in
 * its literal forms (IPv4, IPv6, and IPv6 forms carrying an IPv4 address), URL host forms as the WHATWG parser
 * normalises them, the operator's allow-list, the checks' widening, and the metadata addresses that nothing opens.
 */
import t from 'tap';
import { addressPolicy, classify, refusal } from '../../../outbound/net/addresses.ts';

const none = addressPolicy();

t.test('classification: the rule that refuses each address, or public', async (t) => {
  const cases: [string, string | null][] = [
    // public
    ['8.8.8.8', null], ['1.1.1.1', null], ['172.32.0.1', null], ['100.128.0.1', null], ['169.253.255.255', null], ['2606:4700::1111', null],
    ['::ffff:8.8.8.8', null], ['::ffff:808:808', null], ['64:ff9b::8.8.8.8', null], ['2002:808:808::1', null],
    ['2001:0:808:808:0:0:f7f7:f7f7', null], // Teredo: server 8.8.8.8, client 8.8.8.8 (XOR)
    // loopback
    ['127.0.0.1', 'loopback'], ['127.255.0.9', 'loopback'], ['::1', 'loopback'], ['[::1]', 'loopback'], ['0:0:0:0:0:0:0:1', 'loopback'],
    // unspecified
    ['0.0.0.0', 'unspecified'], ['0.1.2.3', 'unspecified'], ['::', 'unspecified'], ['0:0::0', 'unspecified'],
    // private, carrier-grade NAT, unique local
    ['10.0.0.1', 'private'], ['10.255.255.255', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.0.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'], ['100.127.255.254', 'carrier-grade NAT'],
    ['fd00::1', 'unique local'], ['[fd00::1]', 'unique local'], ['fc00::1', 'unique local'], ['fdff:ffff::1', 'unique local'],
    // link-local and the metadata addresses
    ['169.254.0.1', 'link-local'], ['169.254.169.254', 'cloud metadata'], ['169.254.170.2', 'cloud metadata'], ['100.100.100.200', 'cloud metadata'],
    ['fe80::1', 'link-local'], ['[fe80::1]', 'link-local'], ['fe80::1%eth0', 'link-local'], ['febf::1', 'link-local'],
    ['fd00:ec2::254', 'cloud metadata'], ['fd00:0ec2:0000:0000:0000:0000:0000:0254', 'cloud metadata'], ['FD00:EC2::254', 'cloud metadata'], ['fd00:ec2:0::254', 'cloud metadata'],
    // multicast, broadcast, reserved, documentation
    ['224.0.0.1', 'multicast'], ['239.255.255.250', 'multicast'], ['ff02::1', 'multicast'], ['255.255.255.255', 'broadcast'], ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'], ['198.18.0.1', 'reserved'], ['192.88.99.1', 'reserved'], ['100::1', 'reserved'], ['fec0::1', 'reserved'],
    ['192.0.2.10', 'documentation'], ['198.51.100.7', 'documentation'], ['203.0.113.9', 'documentation'], ['2001:db8::1', 'documentation'], ['3fff::1', 'documentation'],
    // IPv4-mapped, dotted and hex
    ['::ffff:127.0.0.1', 'loopback'], ['::ffff:7f00:1', 'loopback'], ['::ffff:169.254.169.254', 'cloud metadata'], ['[::ffff:a9fe:a9fe]', 'cloud metadata'],
    ['::ffff:10.0.0.1', 'private'], ['::ffff:0a00:0001', 'private'], ['0:0:0:0:0:ffff:192.168.1.1', 'private'], ['::ffff:0.0.0.0', 'unspecified'],
    // IPv4-compatible, dotted and hex
    ['::127.0.0.1', 'loopback'], ['::7f00:1', 'loopback'], ['::169.254.169.254', 'cloud metadata'], ['::a00:1', 'private'],
    // NAT64 (well-known prefix) and the local-use prefix, refused whole
    ['64:ff9b::127.0.0.1', 'loopback'], ['64:ff9b::a9fe:a9fe', 'cloud metadata'], ['64:ff9b::10.1.2.3', 'private'],
    ['64:ff9b:1::8.8.8.8', 'reserved'], ['64:ff9b:1::a00:1', 'reserved'],
    // 6to4: the IPv4 address is bits 16-47
    ['2002:7f00:1::', 'loopback'], ['2002:a9fe:a9fe::1', 'cloud metadata'], ['2002:c0a8:101::1', 'private'], ['2002:0a00:0001:1::5', 'private'],
    // Teredo: server IPv4 in bits 32-63, client IPv4 the last 32 bits XOR 0xffffffff
    ['2001:0:a9fe:a9fe::1', 'cloud metadata'], ['2001:0:808:808:0:0:80ff:fffe', 'loopback'], ['2001:0:808:808::f5ff:fffe', 'private'],
    ['2001:0:808:808::5601:5601', 'cloud metadata'],
    // not an address at all
    ['localhost', 'not an IP address'], ['', 'not an IP address'], ['10.0.0.256', 'not an IP address'],
  ];
  for (const [address, rule] of cases) t.equal(classify(address)?.rule ?? null, rule, `${address || '(empty)'}: ${rule ?? 'public'}`);
  t.same(classify('::ffff:169.254.169.254'), { rule: 'cloud metadata', via: 'IPv4-mapped' }, 'the log says how it was carried');
  t.same(classify('2001:0:808:808::f5ff:fffe'), { rule: 'private', via: 'Teredo client' });
});

t.test('URL hosts are judged as the WHATWG parser normalises them (decimal, octal, hex, short IPv4; IPv6 in brackets)', async (t) => {
  const cases: [string, string][] = [
    ['http://2130706433/', 'loopback'], ['http://0x7f.1/', 'loopback'], ['http://0177.0.0.1/', 'loopback'], ['http://127.1/', 'loopback'],
    ['http://0x7f000001/', 'loopback'], ['http://0/', 'unspecified'], ['http://0.0.0.0:8080/', 'unspecified'], ['http://2852039166/', 'cloud metadata'],
    ['http://0xa9.0xfe.0xa9.0xfe/', 'cloud metadata'], ['http://0251.0376.0251.0376/', 'cloud metadata'], ['http://10.1/', 'private'],
    ['http://[::ffff:169.254.169.254]/', 'cloud metadata'], ['http://[fd00::1]/', 'unique local'], ['http://[fe80::1]/', 'link-local'],
    ['http://[::ffff:127.0.0.1]:8080/', 'loopback'], ['http://[64:ff9b::10.0.0.1]/', 'private'], ['http://[0:0:0:0:0:0:0:1]/', 'loopback'],
  ];
  for (const [url, rule] of cases) t.equal(classify(new URL(url).hostname)?.rule, rule, `${url} → ${new URL(url).hostname}: ${rule}`);
});

t.test('the allow-list opens the networks listed (IPv4 and IPv6, also as carried in IPv6); loopback is its loopback case', async (t) => {
  const listed = addressPolicy(['10.20.0.0/16', 'fd12:3456::/48', '192.168.1.7']);
  t.equal(refusal('10.20.3.4', listed), null, 'inside a listed IPv4 network');
  t.equal(refusal('::ffff:10.20.3.4', listed), null, 'the same, IPv4-mapped');
  t.equal(refusal('fd12:3456::9', listed), null, 'inside a listed IPv6 network');
  t.equal(refusal('192.168.1.7', listed), null, 'a bare address is its own /32');
  t.match(refusal('10.21.0.1', listed), { rule: 'private' }, 'next to it: still refused');
  t.match(refusal('192.168.1.8', listed), { rule: 'private' });
  t.match(refusal('127.0.0.1', listed), { rule: 'loopback' }, 'loopback is not listed');
  const loopback = addressPolicy([], true);
  for (const address of ['127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1']) t.equal(refusal(address, loopback), null, `${address}: VIGIL_OUTBOUND_ALLOW_LOOPBACK`);
  t.match(refusal('10.0.0.1', loopback), { rule: 'private' }, 'loopback opens loopback only');
  t.equal(refusal('8.8.8.8', none), null, 'public needs nothing');
});

t.test('the metadata addresses are never reached: not by a listed network, not by a widening, in no form', async (t) => {
  const everything = addressPolicy(['0.0.0.0/0', '::/0'], true);
  for (const address of ['169.254.169.254', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '64:ff9b::a9fe:a9fe', '2002:a9fe:a9fe::', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254']) {
    t.match(refusal(address, everything, { loopback: true, internal: true }), { rule: 'cloud metadata' }, address);
  }
  t.equal(refusal('169.254.1.1', addressPolicy(['169.254.0.0/16'])), null, 'the rest of link-local can be listed');
  t.match(refusal('localhost', everything), { rule: 'not an IP address' }, 'a name is never judged as an address');
});

t.test('the checks\' widening: loopback and internal networks, by their own settings; never link-local or reserved', async (t) => {
  for (const address of ['10.0.0.7', '172.16.4.4', '192.168.1.1', '100.64.0.9', 'fd00::5', '::ffff:10.1.1.1']) {
    t.equal(refusal(address, none, { internal: true }), null, `${address}: reached by a check while internal networks are allowed`);
    t.ok(refusal(address, none, { loopback: true }), `${address}: refused without it`);
  }
  for (const address of ['169.254.1.1', '0.0.0.0', '224.0.0.1', '192.0.2.10', 'fe80::1', '::']) {
    t.ok(refusal(address, none, { loopback: true, internal: true }), `${address}: never reached by a check`);
  }
  t.equal(refusal('127.0.0.1', none, { loopback: true }), null);
  t.match(refusal('127.0.0.1', none, { internal: true }), { rule: 'loopback' });
});

t.test('a malformed allowed network is refused, naming the setting', async (t) => {
  for (const entry of ['10.0.0.0/33', 'fd00::/129', 'internal.example', '10.0.0/8', '10.0.0.0/8/8', '10.0.0.0/x', '']) {
    t.throws(() => addressPolicy([entry]), /VIGIL_OUTBOUND_ALLOWED_NETWORKS must be comma-separated networks/, JSON.stringify(entry));
  }
});
