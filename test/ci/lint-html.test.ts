/** The hand-escaper check (bin/lint-html.ts): HTML is made by the one template, engine/html.ts. */
import t from 'tap';
import { handEscapers } from '../../bin/lint-html.ts';

t.test('the tree as it stands escapes no HTML by hand', async (t) => {
  t.same(handEscapers(), []);
});

t.test('an escaper function, a call to one and a character reference in code are each named with file and line', async (t) => {
  const root = t.testdir({
    web: { 'a.ts': "const escapeHtml = (s: string) => s;\nexport const p = `<p>${escapeHtml(x)}</p>`;\n" },
    outbound: { 'b.ts': "ok();\nconst e = (s: string) => s.replace(/</g, '&lt;');\nconst f = (c: string) => `&#${c.charCodeAt(0)};`;\n" },
  });
  t.same(handEscapers(root, ['web', 'outbound']), [
    'web/a.ts:1: const escapeHtml = (s: string) => s;',
    'web/a.ts:2: export const p = `<p>${escapeHtml(x)}</p>`;',
    "outbound/b.ts:2: const e = (s: string) => s.replace(/</g, '&lt;');",
    'outbound/b.ts:3: const f = (c: string) => `&#${c.charCodeAt(0)};`;',
  ]);
});

t.test('code that builds with the template passes', async (t) => {
  const root = t.testdir({ web: { 'ok.ts': "import { html } from '../engine/html.ts';\nexport const p = html`<p>${x}</p>`;\n" } });
  t.same(handEscapers(root, ['web']), []);
});
