/** Shared by the alert source parser tests: fixtures, schema-checked results and a little fuzzing. */
import { readFileSync } from 'node:fs';
import type { Test as T } from 'tap';
import Value from 'typebox/value';
import { AlertEventSchema, type AlertEvent, type AlertSource } from '../../../domain/alerts/event.ts';
import type { ParseResult, Parser } from '../../../webhooks/sources/index.ts';

export function fixture(source: AlertSource, name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../../fixtures/webhooks/${source}/${name}.json`, import.meta.url), 'utf8')) as Record<string, unknown>;
}

/** The events of an `alerts` result, each checked against the AlertEvent schema. */
export function eventsOf(t: T, result: ParseResult): AlertEvent[] {
  if (result.kind !== 'alerts') {
    t.fail(`expected alerts, got ${JSON.stringify(result)}`);
    return [];
  }
  for (const e of result.events) {
    t.ok(Value.Check(AlertEventSchema, e), `event ${e.fingerprint} matches the AlertEvent schema`);
  }
  return result.events;
}

export function reasonOf(t: T, result: ParseResult): string {
  if (result.kind !== 'unreadable') {
    t.fail(`expected unreadable, got ${JSON.stringify(result).slice(0, 300)}`);
    return '';
  }
  t.type(result.reason, 'string');
  t.ok(result.reason.length > 0 && result.reason.length < 500, 'a short reason');
  return result.reason;
}

/** A small deterministic PRNG (mulberry32), so a failing fuzz case can be replayed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let r = Math.imul(a ^ (a >>> 15), 1 | a);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

function deepNest(depth: number): unknown {
  let v: unknown = { end: true };
  const keys = ['alerts', 'event', 'Message', 'detail', 'data'];
  for (let i = 0; i < depth; i++) v = i % 2 ? { [keys[i % keys.length]]: v } : [v];
  return v;
}

const HUGE = 'x'.repeat(2_000_000);

/** Bodies that are not any product's payload: each must come back `unreadable`. */
export const JUNK: [string, unknown][] = [
  ['undefined', undefined],
  ['null', null],
  ['true', true],
  ['a number', 42],
  ['NaN', Number.NaN],
  ['an empty string', ''],
  ['a string', 'hello'],
  ['JSON text', '{"alerts":[]}'],
  ['a huge string', HUGE],
  ['an empty array', []],
  ['an array of objects', [{ status: 'firing' }, { event: {} }]],
  ['an empty object', {}],
  ['deeply nested junk', deepNest(5_000)],
  ['an object of huge strings', { alerts: HUGE, event: HUGE, Type: HUGE, Message: HUGE, id: HUGE, title: HUGE, state: HUGE }],
  ['prototype keys', JSON.parse('{"__proto__": {"alerts": [1]}, "constructor": {"event": 1}}')],
  ['a function', () => 1],
  ['a symbol', Symbol('x')],
  ['a bigint', 10n],
  ['a date', new Date(0)],
];

const throwing = new Proxy(
  {},
  {
    get() {
      throw new Error('boom');
    },
    has() {
      throw new Error('boom');
    },
    ownKeys() {
      throw new Error('boom');
    },
    getOwnPropertyDescriptor() {
      throw new Error('boom');
    },
  },
);

function junkValue(rand: () => number): unknown {
  const pick = Math.floor(rand() * 14);
  switch (pick) {
    case 0: return null;
    case 1: return 'x'.repeat(Math.floor(rand() * 70_000));
    case 2: return -1;
    case 3: return 1e308;
    case 4: return [];
    case 5: return {};
    case 6: return [null, 1, 'a'];
    case 7: return deepNest(50);
    case 8: return true;
    case 9: return '$ALERT_TRANSITION';
    case 10: return '{"not": "closed"';
    case 11: return { toString: 'nope', valueOf: 1 };
    case 12: return '0001-01-01T00:00:00Z';
    default: return undefined;
  }
}

/** A copy of the value with random subtrees replaced by junk (also bench/source-parse.ts's input). */
export function mutate(value: unknown, rand: () => number, depth = 0): unknown {
  if (rand() < 0.12 && depth > 0) return junkValue(rand);
  if (Array.isArray(value)) return value.map((v) => mutate(v, rand, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (rand() < 0.05) continue;
      out[k] = mutate(v, rand, depth + 1);
    }
    return out;
  }
  if (typeof value === 'string' && value.startsWith('{') && rand() < 0.5) {
    try {
      return JSON.stringify(mutate(JSON.parse(value), rand, depth + 1));
    } catch {
      return value;
    }
  }
  return value;
}

/** Junk answers unreadable; mutated fixtures answer something well-formed; nothing throws. */
export function fuzz(t: T, parse: Parser, fixtures: Record<string, unknown>[]): void {
  for (const [name, body] of JUNK) {
    let result: ParseResult | undefined;
    t.doesNotThrow(() => {
      result = parse(body);
    }, name);
    t.equal(result?.kind, 'unreadable', `${name} is unreadable`);
  }
  let thrown: ParseResult | undefined;
  t.doesNotThrow(() => {
    thrown = parse(throwing);
  }, 'an object whose every access throws');
  t.equal(thrown?.kind, 'unreadable');

  const rand = prng(0x5eed);
  let alerts = 0;
  let unreadable = 0;
  for (let round = 0; round < 200; round++) {
    const body = mutate(fixtures[round % fixtures.length], rand);
    let result: ParseResult;
    try {
      result = parse(body);
    } catch (err) {
      t.fail(`round ${round} threw ${String(err)}`);
      continue;
    }
    if (result.kind === 'alerts') {
      alerts++;
      for (const e of result.events) {
        if (!Value.Check(AlertEventSchema, e)) t.fail(`round ${round}: ${JSON.stringify(e).slice(0, 300)} breaks the schema`);
        if (e.title.length > 300) t.fail(`round ${round}: title of ${e.title.length} characters`);
      }
    } else if (result.kind === 'unreadable') {
      unreadable++;
      if (typeof result.reason !== 'string' || result.reason === '') t.fail(`round ${round}: no reason`);
    }
  }
  t.ok(alerts + unreadable > 0, `200 mutated fixtures answered (${alerts} read, ${unreadable} unreadable)`);
}
