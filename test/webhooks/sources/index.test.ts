/** The alert sources' parsers (each on its source), and properties every parser shares. */
import { readdirSync } from 'node:fs';
import t from 'tap';
import { ALERT_SOURCES, type AlertSource } from '../../../domain/alerts/event.ts';
import { sourceAt, type Parser } from '../../../webhooks/sources/index.ts';
import { eventsOf, fixture, JUNK } from './helpers.ts';

const ALERT_PARSERS = Object.fromEntries(ALERT_SOURCES.map((s) => [s, sourceAt(s)?.parser])) as Record<AlertSource, Parser>;

t.test('the seven alert sources are webhook sources, each with its parser', async (t) => {
  t.equal(ALERT_SOURCES.length, 7);
  for (const s of ALERT_SOURCES) t.type(ALERT_PARSERS[s], 'function', `${s} is a webhook source with a parser`);
  t.equal(sourceAt('deployments')?.parser, undefined, 'other webhook sources have no alert parser');
});

t.test('every fixture: events carry their own source, a prefixed fingerprint and no secret', async (t) => {
  for (const source of ALERT_SOURCES) {
    const dir = new URL(`../../fixtures/webhooks/${source}/`, import.meta.url);
    const names = readdirSync(dir).filter((n) => n.endsWith('.json'));
    t.ok(names.length >= 3, `${source} has fixtures`);
    for (const name of names) {
      const result = ALERT_PARSERS[source](fixture(source, name.slice(0, -5)));
      if (result.kind === 'subscription') continue;
      for (const e of eventsOf(t, result)) {
        t.equal(e.source, source);
        t.ok(e.fingerprint.startsWith(`${source}:`), `${name}: fingerprint prefixed by its source`);
        t.notMatch(e.title, /Token=|secretAccessKey|wJalrXUtnFEMI/);
      }
    }
  }
});

t.test('no parser throws on junk; each says why it cannot read it', async (t) => {
  for (const source of ALERT_SOURCES) {
    for (const [name, body] of JUNK) {
      const result = ALERT_PARSERS[source](body);
      t.equal(result.kind, 'unreadable', `${source}: ${name}`);
    }
  }
});

t.test('a payload for one source is unreadable by the others', async (t) => {
  const samples: Record<string, Record<string, unknown>> = {
    'metric-dashboard': fixture('metric-dashboard', 'grafana-firing'),
    'incident-pager': fixture('incident-pager', 'triggered'),
    'monitoring-a': fixture('monitoring-a', 'triggered'),
    'monitoring-b': fixture('monitoring-b', 'activated'),
    'cloud-alarms': fixture('cloud-alarms', 'alarm'),
    'cloud-audit': fixture('cloud-audit', 'create-access-key'),
    events: fixture('events', 'pagerduty-trigger'),
  };
  for (const target of ALERT_SOURCES) {
    for (const [from, body] of Object.entries(samples)) {
      const result = ALERT_PARSERS[target](body);
      if (from === target) t.equal(result.kind, 'alerts', `${target} reads its own`);
      else t.equal(result.kind, 'unreadable', `${target} does not read ${from}'s payload`);
    }
  }
});
