/**
 * The documentation stays inside the repository (issue 20): every Markdown link in README.md and docs/ is relative
 * and names a file of the repository (and, with an anchor, a heading of that page); the only http(s) links allowed
 * are samples on localhost, 127.0.0.1 or example.com. docs/README.md lists every page.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCS = join(ROOT, 'docs');

const pages = [join(ROOT, 'README.md'), ...readdirSync(DOCS, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.md')).map((f) => join(DOCS, f))].sort();

/** The page's prose: fenced blocks and inline code removed (they hold samples, not links). */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, 'code');
}

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to `-`; repeats get -1, -2, … */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, text] of prose(markdown.replace(/`([^`\n]*)`/g, '$1')).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = text!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  }
  return found;
}

function links(markdown: string): string[] {
  const text = prose(markdown);
  return [
    ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
    ...[...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/<((?:https?|mailto|ftp):[^>\s]+)>/g)].map((m) => m[1]!),
  ];
}

const SAMPLE_HOSTS = /^(localhost|127\.0\.0\.1|(.+\.)?example\.com)$/;

/** Why a link from `page` is refused, or undefined when it resolves. */
function refusal(page: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
    if (!/^https?:/i.test(target)) return 'only relative links (and http samples on localhost or example.com)';
    return SAMPLE_HOSTS.test(new URL(target).hostname) ? undefined : 'links outside the repository are not allowed';
  }
  if (target.startsWith('/')) return 'a link must be relative to its page';
  const [path, anchor] = target.split('#') as [string, string | undefined];
  const file = path === '' ? page : resolve(dirname(page), decodeURIComponent(path));
  if (!(file + sep).startsWith(ROOT) && file !== ROOT.replace(/\/$/, '')) return 'the link leaves the repository';
  if (!existsSync(file)) return `${relative(ROOT, file)} does not exist`;
  if (anchor === undefined) return undefined;
  if (!statSync(file).isFile() || !file.endsWith('.md')) return 'an anchor needs a Markdown page';
  return anchors(readFileSync(file, 'utf8')).has(anchor) ? undefined : `${relative(ROOT, file)} has no heading #${anchor}`;
}

t.test('every link in README.md and docs/ resolves inside the repository', async (t) => {
  t.ok(pages.length > 30, 'the pages are found');
  for (const page of pages) {
    const bad = links(readFileSync(page, 'utf8')).flatMap((target) => {
      const why = refusal(page, target);
      return why ? [`${target}: ${why}`] : [];
    });
    t.same(bad, [], relative(ROOT, page));
  }
});

t.test('docs/README.md lists every page', async (t) => {
  const index = join(DOCS, 'README.md');
  const listed = new Set(links(readFileSync(index, 'utf8')).map((l) => resolve(DOCS, l.split('#')[0]!)));
  const unlisted = pages.filter((p) => p.startsWith(DOCS + sep) && p !== index && !listed.has(p)).map((p) => relative(ROOT, p));
  t.same(unlisted, [], 'pages missing from the index');
});

t.test('the checker refuses what it must', async (t) => {
  // the rules above would pass anything if they never refused: each kind of bad link is refused
  const page = join(DOCS, 'README.md');
  t.match(refusal(page, 'https://github.com/timgit/pg-boss'), /outside the repository/);
  t.equal(refusal(page, 'http://127.0.0.1:8080/board/MO-1'), undefined);
  t.match(refusal(page, '/api/v1/config/docs#tag-teams'), /relative/);
  t.match(refusal(page, 'missing.md'), /does not exist/);
  t.match(refusal(page, 'api.md#no-such-heading'), /no heading/);
  t.equal(refusal(page, 'api.md#rate-limits'), undefined);
  t.match(refusal(page, '../../outside.md'), /leaves the repository|does not exist/);
  t.same(links('see [a](b.md) and `[c](d.md)`\n```\n[e](f.md)\n```\n[g]: h.md'), ['b.md', 'h.md']);
});
