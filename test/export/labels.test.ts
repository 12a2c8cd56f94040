/** Block labels: HCL identifiers made from what names a row, collisions told apart the same way every time. */
import t from 'tap';
import { assignLabels, sanitizeLabel } from '../../export/labels.ts';

const CASES: [string, string][] = [
  ['checkout 99.9', 'checkout_99_9'],
  ['Checkout-API', 'checkout_api'],
  ['  spaced  out  ', 'spaced_out'],
  ['Café Crème', 'cafe_creme'],
  ['99 problems', '_99_problems'],
  ['東京', 'row'],
  ['', 'row'],
  ['__x__', 'x'],
  ['a'.repeat(80), 'a'.repeat(60)],
  ['checkout/prod', 'checkout_prod'],
];

t.test('any text becomes an identifier [a-z_][a-z0-9_]*', async (t) => {
  for (const [text, label] of CASES) {
    t.equal(sanitizeLabel(text), label, JSON.stringify(text));
    t.match(sanitizeLabel(text), /^[a-z_][a-z0-9_]*$/);
  }
});

t.test('collisions get suffixes in rank order, then id order, never taking another row\'s own label', async (t) => {
  const labels = assignLabels([
    { id: 'c', base: 'api', rank: '2' },
    { id: 'a', base: 'api', rank: '3' },
    { id: 'b', base: 'api_2', rank: '1' },
    { id: 'd', base: 'web' },
    { id: 'e', base: 'web' },
  ]);
  t.same(Object.fromEntries(labels), { c: 'api', a: 'api_3', b: 'api_2', d: 'web', e: 'web_2' });
  const again = assignLabels([
    { id: 'e', base: 'web' },
    { id: 'd', base: 'web' },
  ]);
  t.same(Object.fromEntries(again), { d: 'web', e: 'web_2' }, 'the input order does not matter');
  t.same(Object.fromEntries(assignLabels([{ id: 'x', base: 'api' }], new Set(['api']))), { x: 'api_2' }, 'labels already taken are skipped');
});
