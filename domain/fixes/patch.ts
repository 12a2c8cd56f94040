/**
 * The pure parts of an analysis: which files of the repository to show the provider, the prompt, and the
 * provider's answer read and checked.
 *
 * Files shown: paths the description names (`src/pay.ts`, `pay.ts`) first, then paths whose names share words
 * with the description and the service, skipping vendored, generated, lock and binary files; at most
 * `MAX_FILES` files of at most `MAX_FILE_BYTES` each and `MAX_TOTAL_BYTES` together; a README when nothing
 * matches. The prompt also lists up to `MAX_TREE_PATHS` paths of the repository so the provider knows its shape.
 *
 * The answer is one JSON object (the request asks for `json_object`):
 *   { "decision": "patch", "title": "…", "body": "…", "files": [{ "path": "…", "content": "<the whole new file>" }] }
 *   { "decision": "decline", "reason": "…" }
 * A patch changes only files it was shown or adds new ones (a path absent from the repository): rewriting a
 * file it never saw would lose that file's content. Paths are relative, without `..`, `.git` or a leading `/`;
 * at most `MAX_PATCH_FILES` files and `MAX_NEW_FILE_BYTES` each. A file that comes back unchanged is dropped; a
 * patch with nothing left is a decline. Content holding a `[SECRET_n]` placeholder the file did not already
 * hold is refused: with `anonymization_enabled` secrets are masked before the prompt leaves and never put back,
 * so committing such a file would break it.
 */
import type { ChatMessage } from '../ai/client.ts';

export const MAX_FILES = 8;
export const MAX_FILE_BYTES = 64 * 1024;
export const MAX_TOTAL_BYTES = 192 * 1024;
export const MAX_TREE_PATHS = 400;
export const MAX_PATCH_FILES = 20;
export const MAX_NEW_FILE_BYTES = 512 * 1024;
const MAX_TITLE = 200;
const MAX_BODY = 20_000;
const MAX_REASON = 2_000;

export interface TreeEntry {
  path: string;
  size: number;
}

export interface ShownFile {
  path: string;
  content: string;
}

const SKIPPED_DIRS = /(^|\/)(node_modules|vendor|dist|build|out|target|\.git|\.next|coverage|__pycache__|third_party)\//;
const SKIPPED_FILES = /(^|\/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|Cargo\.lock|go\.sum|poetry\.lock|composer\.lock|Gemfile\.lock)$|\.min\.(js|css)$|\.(png|jpe?g|gif|webp|ico|svg|pdf|zip|gz|tgz|jar|so|dll|exe|bin|woff2?|ttf|eot|mp[34]|mov|lock)$/i;
const STOP_WORDS = new Set(['the', 'and', 'for', 'with', 'when', 'that', 'this', 'from', 'into', 'are', 'was', 'not', 'but', 'fix', 'bug', 'error', 'please', 'should', 'does', 'doesn', 'have', 'has', 'after', 'before', 'some', 'all', 'any', 'its', 'our', 'you', 'can', 'cannot', 'will', 'would', 'there', 'then', 'than', 'them', 'they', 'what', 'which', 'who', 'how', 'why',
  // directory names every repository has say nothing about the fix
  'src', 'lib', 'app', 'pkg', 'internal', 'cmd', 'main', 'index', 'util', 'utils', 'common', 'core', 'source', 'sources']);

function words(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().split(/[^a-z0-9]+/)) if (w.length >= 3 && !STOP_WORDS.has(w)) out.add(w);
  return out;
}

/** The files to show, best first (paths only; the caller fetches them within the byte budget). */
export function chooseFiles(tree: TreeEntry[], description: string, service: string | null): string[] {
  const candidates = tree.filter((e) => !SKIPPED_DIRS.test(e.path) && !SKIPPED_FILES.test(e.path) && e.size <= MAX_FILE_BYTES);
  const lower = description.toLowerCase();
  const wanted = words(`${description} ${service ?? ''}`);
  const scored = candidates.map((e) => {
    const path = e.path.toLowerCase();
    const base = path.slice(path.lastIndexOf('/') + 1);
    let score = 0;
    if (lower.includes(path)) score += 100;
    else if (base.includes('.') && new RegExp(`(^|[^a-z0-9_./-])${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^a-z0-9_-])`).test(lower)) score += 50;
    const stem = base.replace(/\.[^.]+$/, '');
    for (const w of words(stem)) if (wanted.has(w)) score += 5;
    for (const w of words(path.slice(0, path.length - base.length))) if (wanted.has(w)) score += 2;
    return { path: e.path, score };
  });
  const picked = scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score || a.path.localeCompare(b.path)).map((s) => s.path);
  if (picked.length === 0) {
    const readme = candidates.find((e) => /^readme(\.[a-z]+)?$/i.test(e.path));
    return readme ? [readme.path] : [];
  }
  return picked.slice(0, MAX_FILES * 2);
}

const SYSTEM_PROMPT = [
  'You are the remediation engineer of an incident-response service. You receive a request for a code fix, the list of files of one',
  'repository and the content of the files most likely involved. Either propose a minimal, safe patch, or decline with a reason when',
  'the request is unclear, unsafe, not a code change, or the files shown are not enough to make it.',
  'Answer with exactly one JSON object and nothing else, in one of these two shapes:',
  '{"decision":"patch","title":"<pull request title, under 72 characters>","body":"<pull request description in Markdown: the problem, the change, how to verify>","files":[{"path":"<repository path>","content":"<the complete new content of the file>"}]}',
  '{"decision":"decline","reason":"<why no patch is proposed>"}',
  'Rules: give each changed file\'s complete new content, not a diff; change only files whose content you were shown, or add new files;',
  'keep unrelated code exactly as it is; never invent secrets or credentials; at most 20 files.',
].join('\n');

export function buildMessages(request: { description: string; service: string | null; repo: string; ticket: string | null; baseBranch: string }, tree: TreeEntry[], files: ShownFile[], truncatedTree: boolean): ChatMessage[] {
  const listing = tree.slice(0, MAX_TREE_PATHS).map((e) => e.path).join('\n');
  const more = tree.length > MAX_TREE_PATHS || truncatedTree ? `\n… (${truncatedTree ? 'more' : tree.length - MAX_TREE_PATHS} more paths not listed)` : '';
  const shown = files.length
    ? files.map((f) => `=== ${f.path} ===\n${f.content}\n=== end of ${f.path} ===`).join('\n\n')
    : '(no file matched the request; ask for what is missing by declining)';
  const user = [
    `Repository: ${request.repo} (branch ${request.baseBranch})`,
    request.service ? `Service: ${request.service}` : null,
    request.ticket ? `Ticket: ${request.ticket}` : null,
    '',
    'Requested fix:',
    request.description,
    '',
    'Files in the repository:',
    `${listing}${more}`,
    '',
    'Content of the files most likely involved:',
    shown,
  ].filter((l) => l !== null).join('\n');
  return [{ role: 'system', content: SYSTEM_PROMPT }, { role: 'user', content: user }];
}

export type Proposal =
  | { decision: 'patch'; title: string; body: string; files: ShownFile[] }
  | { decision: 'decline'; reason: string };

/** A proposal that cannot be used: `reason` says why, without repeating the answer. */
export class UnusableAnswer extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnusableAnswer';
  }
}

const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** The JSON object of an answer; tolerates a Markdown code fence around it, as some models add one. */
function parseObject(content: string): Record<string, unknown> {
  const trimmed = content.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(trimmed);
  let value: unknown;
  try {
    value = JSON.parse(fenced ? fenced[1]! : trimmed);
  } catch {
    throw new UnusableAnswer('the provider\'s answer is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UnusableAnswer('the provider\'s answer is not a JSON object');
  return value as Record<string, unknown>;
}

function checkPath(path: unknown, index: number): string {
  if (typeof path !== 'string' || path.trim() === '') throw new UnusableAnswer(`files[${index}].path is missing`);
  const p = path.trim();
  const segments = p.split('/');
  if (p.startsWith('/') || p.length > 500 || segments.some((s) => s === '' || s === '.' || s === '..' || s.toLowerCase() === '.git') || /[\u0000-\u001f\\]/.test(p)) {
    throw new UnusableAnswer(`files[${index}].path is not a relative path inside the repository`);
  }
  return p;
}

const SECRET_PLACEHOLDER = /\[SECRET_\d+\]/g;

/** Reads and checks the provider's answer against the repository it was shown. */
export function readProposal(content: string, shown: ShownFile[], existing: ReadonlySet<string>): Proposal {
  const answer = parseObject(content);
  if (answer.decision === 'decline') {
    const reason = typeof answer.reason === 'string' && answer.reason.trim() ? clip(answer.reason.trim(), MAX_REASON) : 'the provider gave no reason';
    return { decision: 'decline', reason };
  }
  if (answer.decision !== 'patch') throw new UnusableAnswer('the provider\'s answer has no decision of "patch" or "decline"');
  if (typeof answer.title !== 'string' || answer.title.trim() === '') throw new UnusableAnswer('the patch has no title');
  if (!Array.isArray(answer.files) || answer.files.length === 0) throw new UnusableAnswer('the patch has no files');
  if (answer.files.length > MAX_PATCH_FILES) throw new UnusableAnswer(`the patch changes more than ${MAX_PATCH_FILES} files`);
  const byPath = new Map(shown.map((f) => [f.path, f.content]));
  const files: ShownFile[] = [];
  const seen = new Set<string>();
  answer.files.forEach((file: unknown, i: number) => {
    const f = (typeof file === 'object' && file !== null ? file : {}) as Record<string, unknown>;
    const path = checkPath(f.path, i);
    if (seen.has(path)) throw new UnusableAnswer(`files[${i}].path appears twice`);
    seen.add(path);
    if (typeof f.content !== 'string') throw new UnusableAnswer(`files[${i}].content is not a string`);
    if (Buffer.byteLength(f.content) > MAX_NEW_FILE_BYTES) throw new UnusableAnswer(`files[${i}].content is larger than ${MAX_NEW_FILE_BYTES} bytes`);
    const before = byPath.get(path);
    if (before === undefined && existing.has(path)) throw new UnusableAnswer(`files[${i}] rewrites a file the provider was not shown`);
    const masked = (f.content.match(SECRET_PLACEHOLDER) ?? []).filter((m) => !(before ?? '').includes(m));
    if (masked.length) {
      throw new UnusableAnswer(`files[${i}] holds masked secrets ([SECRET_n]) left by anonymization; committing it would break the file`);
    }
    if (before !== f.content) files.push({ path, content: f.content });
  });
  if (files.length === 0) return { decision: 'decline', reason: 'the proposed patch changes nothing' };
  const body = typeof answer.body === 'string' ? clip(answer.body.trim(), MAX_BODY) : '';
  return { decision: 'patch', title: clip(answer.title.trim().replace(/\s+/g, ' '), MAX_TITLE), body, files };
}
