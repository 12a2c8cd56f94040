/**
 * Text of an Atlassian Document Format document (what Jira Cloud's REST API v3 and webhooks send for rich-text
 * fields such as `description`): text nodes in order, block nodes (paragraphs, headings, list items, quotes, code
 * blocks, table cells) on lines of their own, hard breaks as newlines, mentions, emoji, dates and inline cards by
 * their text or URL. Anything else is walked for its content. Bounded in depth and size, never throws.
 */
import { isRecord } from '../../engine/payload.ts';

const BLOCKS = new Set(['paragraph', 'heading', 'listItem', 'blockquote', 'codeBlock', 'rule', 'panel', 'tableRow', 'mediaSingle', 'expand', 'nestedExpand', 'taskItem', 'decisionItem']);
const MAX_DEPTH = 50;
const MAX_CHARS = 100_000;

export function adfText(doc: unknown): string {
  const out: string[] = [];
  let size = 0;
  const push = (s: string) => {
    if (size >= MAX_CHARS) return;
    out.push(s);
    size += s.length;
  };
  // a block ends its line once: a paragraph inside a list item is not followed by an empty line
  const newline = () => {
    const last = out[out.length - 1];
    if (last !== undefined && !last.endsWith('\n')) push('\n');
  };
  const walk = (node: unknown, depth: number) => {
    if (depth > MAX_DEPTH || size >= MAX_CHARS) return;
    if (Array.isArray(node)) {
      for (const child of node) walk(child, depth + 1);
      return;
    }
    if (!isRecord(node)) return;
    const attrs = isRecord(node.attrs) ? node.attrs : {};
    switch (node.type) {
      case 'text':
        if (typeof node.text === 'string') push(node.text);
        return;
      case 'hardBreak':
        push('\n');
        return;
      case 'mention':
      case 'emoji':
      case 'status':
        if (typeof attrs.text === 'string') push(attrs.text);
        else if (typeof attrs.shortName === 'string') push(attrs.shortName);
        return;
      case 'inlineCard':
      case 'blockCard':
        if (typeof attrs.url === 'string') push(attrs.url);
        return;
      case 'date':
        if (typeof attrs.timestamp === 'string' && /^\d+$/.test(attrs.timestamp)) push(new Date(Number(attrs.timestamp)).toISOString().slice(0, 10));
        return;
    }
    if (Array.isArray(node.content)) walk(node.content, depth + 1);
    if (typeof node.type === 'string' && BLOCKS.has(node.type)) newline();
    else if (node.type === 'tableCell' || node.type === 'tableHeader') push('\t');
  };
  walk(doc, 0);
  return out.join('').replace(/[ \t]+\n/g, '\n').trim();
}

/** A rich-text field as Jira sends it: a string (REST v2, older webhooks) or an ADF document. */
export function jiraText(value: unknown): string {
  if (typeof value === 'string') return value;
  return isRecord(value) && value.type === 'doc' ? adfText(value) : '';
}
