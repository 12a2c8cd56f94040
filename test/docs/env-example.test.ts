/**
 * .env.example and docs/configuration.md cannot drift from bin/env.ts (issues 22, 34): each names every variable
 * readSettings reads, and nothing else but compose.yaml's own; each default .env.example gives is a value
 * readSettings accepts, and gives what unset gives.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { readSettings, type Settings } from '../../bin/env.ts';
import { CHECK_DEFAULTS, resolveCheckOptions } from '../../domain/checks/options.ts';
import { DEFAULT_RATE_LIMIT } from '../../engine/rate-limit/limits.ts';

const EXAMPLE = readFileSync(fileURLToPath(new URL('../../.env.example', import.meta.url)), 'utf8');
const CONFIGURATION = readFileSync(fileURLToPath(new URL('../../docs/configuration.md', import.meta.url)), 'utf8');
/** read by compose.yaml, not by Vigil */
const COMPOSE_ONLY = ['POSTGRES_PASSWORD', 'VIGIL_PORT'];

/** `NAME=value` lines, commented out or not */
const lines = EXAMPLE.split('\n').flatMap((line) => {
  const match = /^#? ?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
  return match ? [{ name: match[1]!, value: match[2]! }] : [];
});

/** The variables readSettings reads from `env` (a recording proxy over it). */
function variablesRead(env: Record<string, string>): Set<string> {
  const read = new Set<string>();
  readSettings(new Proxy(env, { get: (target, key) => (typeof key === 'string' && read.add(key), target[key as string]) }));
  return read;
}

// the settings read only once another is set (the AI provider's key and model, the mail sender) are read here too
const read = new Set([...variablesRead({}), ...variablesRead({ VIGIL_AI_BASE_URL: 'https://ai.example.com/v1', VIGIL_SMTP_URL: 'smtp://mail.example.com' })]);

t.test('.env.example names every setting bin/env.ts reads, once, and no other', async (t) => {
  const named = lines.map((l) => l.name);
  t.same(named.filter((n, i) => named.indexOf(n) !== i), [], 'no variable twice');
  t.same([...read].filter((n) => !named.includes(n)).sort(), [], 'every variable read is in .env.example');
  t.same(named.filter((n) => !read.has(n) && !COMPOSE_ONLY.includes(n)).sort(), [], 'every variable in .env.example is read');
  t.ok(read.size > 30, 'the recording saw the settings');
});

t.test('docs/configuration.md documents every setting bin/env.ts reads, once, and no other, in its table of the service', async (t) => {
  // the section "The service" (the CLI's and the tests' variables have their own sections); a row's first cell may name several
  const section = CONFIGURATION.split(/^## /m).find((s) => s.startsWith('The service'));
  t.ok(section, 'the section is there');
  const documented = (section ?? '').split('\n').flatMap((line) => {
    const first = /^\| ([^|]+) \|/.exec(line)?.[1] ?? '';
    return [...first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!);
  });
  t.same(documented.filter((n, i) => documented.indexOf(n) !== i), [], 'no variable twice');
  t.same([...read].filter((n) => !documented.includes(n)).sort(), [], 'every variable read is documented');
  t.same(documented.filter((n) => !read.has(n)).sort(), [], 'every variable documented is read');
});

t.test('each default in .env.example is accepted and means what unset means', async (t) => {
  const given = Object.fromEntries(lines.filter((l) => !COMPOSE_ONLY.includes(l.name) && l.value !== '').map((l) => [l.name, l.value]));
  for (const [name, value] of Object.entries(given)) t.doesNotThrow(() => readSettings({ [name]: value }), `${name}=${value} is accepted`);
  const unset = readSettings({});
  const example = readSettings(given);
  // defaults that live beside the part that uses them are compared resolved
  const resolved = (s: Settings) => ({ ...s, checks: resolveCheckOptions(s.checks), notify: { tickSeconds: s.notify.tickSeconds ?? 30 }, authCacheMs: s.authCacheMs ?? 2000,
    rateLimits: { ...s.rateLimits, webhookRateLimit: s.rateLimits.webhookRateLimit ?? DEFAULT_RATE_LIMIT } });
  t.same(resolved(example), resolved(unset), 'readSettings answers the same with the defaults written out as with nothing set');
  t.equal(resolveCheckOptions(unset.checks).tickSeconds, CHECK_DEFAULTS.tickSeconds);
});
