/**
 * The tables and the check of test/engine/targets-*.test.ts. Refuse early (issue 19): every URL (or host) field the
 * service calls is judged when a row is saved, through REST and MCP alike, under the deployment's address policy: a bad value answers 422 validation_failed naming the field,
 * never echoing the value, and writes nothing (no row, no change, no audit entry). Two deployments: the harness's
 * (loopback allowed, as for local receivers) and a strict one (no loopback; checks without private networks).
 * The files split the fields and the deployments between them, each a share of the work a busy machine can do
 * within tap's per-file timeout.
 */
import type { Test } from 'tap';
import { singularOf } from '../../engine/mcp/tools.ts';
import { families } from '../../resources/index.ts';
import { CONFIG, type Client, type Vigil } from './harness.ts';
import { connectAgent, type Agent } from './mcp.ts';

interface UrlField {
  family: string;
  /** the field an error names */
  field: string;
  /** a create body holding `value`, unique per `n` */
  create(value: string, n: number): Record<string, unknown>;
  /** an update body holding `value` */
  update(value: string): Record<string, unknown>;
  /** a value every deployment accepts */
  good: string;
}

const url = (value: string) => ({ url: value });
const FIELDS: Record<string, UrlField> = {
  'ai_providers.base_url': { family: 'ai_providers', field: 'base_url', create: (v, n) => ({ name: `p${n}`, provider: 'gateway', base_url: v }), update: (v) => ({ base_url: v }), good: 'https://gateway.example.com/v1' },
  'ticket_integrations.base_url': {
    family: 'ticket_integrations', field: 'base_url', create: (v) => ({ provider: 'issue_tracker', base_url: v, account: 'ops', api_token: 'tok-0001' }), update: (v) => ({ base_url: v }), good: 'https://tracker.example.com',
  },
  'outbound_configs.url': { family: 'outbound_configs', field: 'url', create: (v, n) => ({ name: `o${n}`, kind: 'webhook', ...url(v) }), update: url, good: 'https://hooks.example.com/x' },
  'connectors.settings.url': {
    family: 'connectors', field: 'settings.url', create: (v, n) => ({ name: `c${n}`, kind: 'logs', provider: 'loki', settings: url(v) }), update: (v) => ({ settings: url(v) }), good: 'https://loki.example.com',
  },
  'image_targets.registry': {
    family: 'image_targets', field: 'registry', create: (v, n) => ({ registry: v, repository: `acme/r${n}`, service: 's' }), update: (v) => ({ registry: v }), good: 'ghcr.io',
  },
  'synthetic_checks.url': { family: 'synthetic_checks', field: 'url', create: (v, n) => ({ name: `s${n}`, ...url(v) }), update: url, good: 'https://status.example.com/health' },
  'certificate_monitors.host': { family: 'certificate_monitors', field: 'host', create: (v, n) => ({ host: v, port: 1000 + n }), update: (v) => ({ host: v }), good: 'api.example.com' },
  'status_page_settings.support_url': { family: 'status_page_settings', field: 'support_url', create: () => ({}), update: (v) => ({ support_url: v }), good: 'https://help.example.com' },
};

/** Outbound URLs every deployment refuses: other schemes, credentials, http to a name, and addresses never reached in any notation. */
const SCHEMES = ['file:///etc/passwd', 'gopher://internal.example:70/_x', 'ftp://files.example.com/x', 'data:text/plain,x', 'javascript:alert(1)', 'https://user:pw@hooks.example.com/'];
const NEVER = [
  'https://169.254.169.254/latest/meta-data/', 'https://[::ffff:169.254.169.254]/', 'https://[::ffff:a9fe:a9fe]/', 'https://2852039166/', 'https://0xa9fea9fe/',
  'https://0251.0376.0251.0376/', 'https://0.0.0.0/', 'https://[::]/', 'https://[fe80::1]/',
];
const PRIVATE = ['https://10.0.0.1/', 'https://192.168.1.10/', 'https://172.16.0.1/', 'https://100.64.0.1/', 'https://[fd00::1]/'];
const LOOPBACK_URLS = ['http://127.0.0.1:9000/x', 'https://localhost/x', 'http://[::1]:8080/x', 'http://2130706433/x', 'http://0x7f.1/x'];

const OUTBOUND_BAD = [...SCHEMES, ...NEVER, ...PRIVATE, 'http://hooks.example.com/x', 'http://8.8.8.8/x'];
const CHECK_BAD = [...SCHEMES, ...NEVER];
const HOST_NEVER = ['169.254.169.254', '0.0.0.0', 'fe80::1', '::ffff:169.254.169.254'];

/** What the harness's deployment refuses and accepts, per field (loopback allowed; checks reach private networks). */
export const OPEN: Record<string, { bad: string[]; good: string[] }> = {
  'ai_providers.base_url': { bad: OUTBOUND_BAD, good: ['https://8.8.8.8/v1', ...LOOPBACK_URLS, 'http://localhost:8080/v1'] },
  'ticket_integrations.base_url': { bad: OUTBOUND_BAD, good: ['https://internal.example', 'http://127.0.0.1:9000'] },
  'outbound_configs.url': { bad: OUTBOUND_BAD, good: ['http://127.0.0.1:9000/x', 'http://[::1]:8080/x'] },
  'connectors.settings.url': { bad: OUTBOUND_BAD, good: ['http://localhost:9090'] },
  'image_targets.registry': { bad: ['169.254.169.254', '10.0.0.1:5000', '0.0.0.0', '192.168.1.10'], good: ['localhost:5000', '127.0.0.1:5000', 'registry.example.com:5000'] },
  'synthetic_checks.url': { bad: CHECK_BAD, good: ['http://10.0.0.7:8080/ping', 'http://[fd00::1]/', 'http://health.internal.example/', 'http://127.0.0.1:1/x', 'http://localhost/x'] },
  'certificate_monitors.host': { bad: HOST_NEVER, good: ['10.0.0.5', 'fd00::1', 'localhost', '::1', '127.0.0.1'] },
  'status_page_settings.support_url': { bad: ['http://help.example.com', 'https://user:pw@help.example.com/', 'javascript:alert(1)', 'ftp://help.example.com/'], good: ['https://10.0.0.1/help'] },
};

/** The fields targets-checks.test.ts runs; targets-integrations.test.ts runs every other one of OPEN. */
export const CHECKED_OR_LINKED = ['image_targets.registry', 'synthetic_checks.url', 'certificate_monitors.host', 'status_page_settings.support_url'];

/** The strict deployment: loopback refused for both policies, private networks refused for checks too. */
export const STRICT: Record<string, { bad: string[]; good: string[] }> = {
  'ai_providers.base_url': { bad: LOOPBACK_URLS, good: ['https://internal.example/v1'] },
  'outbound_configs.url': { bad: LOOPBACK_URLS, good: ['https://internal.example/x'] },
  'connectors.settings.url': { bad: ['http://localhost:9090'], good: [] },
  'image_targets.registry': { bad: ['localhost:5000', '127.0.0.1:5000'], good: [] },
  'synthetic_checks.url': { bad: ['http://10.0.0.7:8080/ping', 'http://[fd00::1]/', ...LOOPBACK_URLS], good: ['http://health.internal.example/'] },
  'certificate_monitors.host': { bad: ['10.0.0.5', 'fd00::1', 'localhost', '::1', '127.0.0.1'], good: ['internal.example'] },
};

const byName = (name: string) => families.find((f) => f.name === name)!;

/** The parts of a value an answer must never repeat: the value, and its host when it has a telling one. */
function telltales(value: string): string[] {
  const host = URL.parse(value)?.hostname ?? value;
  return [value, ...(host.length > 4 && !['localhost', 'example.com'].includes(host) ? [host.replace(/^\[|\]$/g, '')] : [])];
}

interface Surfaces {
  api: Client;
  agent: Agent;
}

export async function surfaces(vigil: Vigil, t: Test): Promise<Surfaces> {
  const org = await vigil.organization();
  const api = await org.key(['api:admin']);
  const agent = await connectAgent(vigil.url, (await org.key(['mcp:admin'])).token);
  t.teardown(() => agent.close());
  return { api, agent };
}

const newestAudit = async (api: Client) => (await api.get(`${CONFIG}/audit_log?limit=1`)).body.data[0]?.id ?? null;

/** Runs one field's table: the good values saved, each bad one refused on create and update through both transports. */
export async function checkField(t: Test, s: Surfaces, key: string, table: { bad: string[]; good: string[] }) {
  const spec = FIELDS[key]!;
  const d = byName(spec.family);
  const path = `${CONFIG}/${spec.family}`;
  const singleton = d.kind === 'singleton';
  let n = 0;
  let rowPath = path;
  let id: string | undefined;
  if (!singleton) {
    const made = await s.api.post(path, spec.create(spec.good, n++));
    t.equal(made.status, 201, `${key}: ${spec.good} is accepted`);
    id = String(made.body.data.id);
    rowPath = `${path}/${encodeURIComponent(id)}`;
  } else {
    t.equal((await s.api.put(path, spec.update(spec.good))).status, 200, `${key}: ${spec.good} is accepted`);
  }
  const before = { row: (await s.api.get(rowPath)).body.data, audit: await newestAudit(s.api), count: singleton ? 1 : (await s.api.get(path)).body.data.length };
  const singular = singularOf(d);
  for (const value of table.bad) {
    const answers: [string, { status?: number; isError?: boolean; body: any }][] = [
      ['REST update', await s.api.put(rowPath, spec.update(value))],
      ['MCP update', await s.agent.call(`update_${singular}`, { ...(singleton ? {} : { id }), ...spec.update(value) })],
    ];
    if (!singleton) {
      answers.push(['REST create', await s.api.post(path, spec.create(value, n++))]);
      answers.push(['MCP create', await s.agent.call(`create_${singular}`, spec.create(value, n++))]);
    }
    for (const [where, answer] of answers) {
      if ('status' in answer && answer.status !== undefined) t.equal(answer.status, 422, `${key} ${value}: ${where} answers 422`);
      else t.ok(answer.isError, `${key} ${value}: ${where} is a tool error`);
      t.equal(answer.body?.error, 'validation_failed', `${key} ${value}: ${where} validation_failed`);
      t.same((answer.body?.errors ?? []).map((e: { field: string }) => e.field), [spec.field], `${key} ${value}: ${where} names ${spec.field} alone`);
      const text = JSON.stringify(answer.body);
      for (const part of telltales(value)) t.notOk(text.includes(part), `${key} ${value}: ${where} does not echo ${part}`);
    }
  }
  t.same((await s.api.get(rowPath)).body.data, before.row, `${key}: the row is unchanged`);
  t.equal(await newestAudit(s.api), before.audit, `${key}: no audit entry was written`);
  if (!singleton) t.equal((await s.api.get(path)).body.data.length, before.count, `${key}: no row was created`);
  for (const value of table.good) {
    const rest = await s.api.put(rowPath, spec.update(value));
    t.equal(rest.status, 200, `${key}: ${value} is accepted (REST)`);
    const mcp = await s.agent.call(`update_${singular}`, { ...(singleton ? {} : { id }), ...spec.update(spec.good) });
    t.notOk(mcp.isError, `${key}: ${spec.good} is accepted (MCP)`);
  }
}
