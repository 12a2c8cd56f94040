/**
 * Fails when code outside the one template (engine/html.ts) escapes HTML by hand: every page and email body is
 * built with `html`, which escapes by construction, so a hand escaper is a second way that can be forgotten.
 * Run by `npm run lint:imports`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const FOLDERS = ['bin', 'engine', 'resources', 'webhooks', 'domain', 'outbound', 'web', 'export'];

/** Files that escape for another language than HTML, each with why. */
export const OTHER_MARKUP: Record<string, string> = {
  'engine/html.ts': 'the template itself',
  'outbound/render/chat-messages.ts': "Slack mrkdwn text (& < >, as the chat Web API asks), not HTML",
  'outbound/net/chat-api.ts': "Slack mrkdwn text (& < >, as the chat Web API asks), not HTML: chat posts and chat pages share it",
  'web/status-page/feed.ts': 'XML text of the Atom and RSS feeds, not HTML',
  'bin/lint-html.ts': 'this check names what it looks for',
};

/** An escaper's name, or a character reference written in code to replace a character with. */
const ESCAPER = /\b(?:function|const|let)\s+escape\w*|escapeHtml\(|&(?:lt|gt|amp|quot|apos|#39|#x27);|&#\$\{/;

export function handEscapers(root = new URL('..', import.meta.url).pathname, folders = FOLDERS): string[] {
  const found: string[] = [];
  for (const folder of folders) {
    let files: string[];
    try {
      files = readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' });
    } catch {
      continue;
    }
    for (const file of files.filter((f) => f.endsWith('.ts'))) {
      const path = `${folder}/${file}`;
      if (path in OTHER_MARKUP) continue;
      readFileSync(join(root, path), 'utf8').split('\n').forEach((line, i) => {
        if (ESCAPER.test(line)) found.push(`${path}:${i + 1}: ${line.trim()}`);
      });
    }
  }
  return found;
}

if (import.meta.main) {
  const found = handEscapers();
  for (const line of found) process.stderr.write(`HTML escaped by hand (build it with html from engine/html.ts): ${line}\n`);
  process.exit(found.length ? 1 : 0);
}
