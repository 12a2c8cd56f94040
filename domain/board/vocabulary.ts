/** The board's words: statuses and the synonyms an update accepts, priorities, and the size limits of a card. */

export const CARD_STATUSES = ['backlog', 'triage', 'todo', 'in_progress', 'blocked', 'done'] as const;
export type CardStatus = (typeof CARD_STATUSES)[number] | 'archived';
export const CARD_PRIORITIES = ['urgent', 'high', 'normal', 'low'] as const;
export type CardPriority = (typeof CARD_PRIORITIES)[number];

/**
 * Status words an update accepts, after lowercasing, turning `_` and `-` into spaces, dropping apostrophes and
 * collapsing spaces. `archived` is what the won't-do words lead to: not done, off the board, reported as
 * `archived`.
 */
export const STATUS_SYNONYMS: Record<string, CardStatus> = {
  backlog: 'backlog', icebox: 'backlog', later: 'backlog', someday: 'backlog',
  triage: 'triage', new: 'triage', open: 'triage', opened: 'triage', reopened: 'triage', untriaged: 'triage', 'needs triage': 'triage',
  todo: 'todo', 'to do': 'todo', ready: 'todo', planned: 'todo', 'not started': 'todo', selected: 'todo', accepted: 'todo',
  'in progress': 'in_progress', inprogress: 'in_progress', doing: 'in_progress', started: 'in_progress', wip: 'in_progress',
  active: 'in_progress', working: 'in_progress', 'in review': 'in_progress', review: 'in_progress',
  blocked: 'blocked', 'on hold': 'blocked', waiting: 'blocked', stalled: 'blocked',
  done: 'done', closed: 'done', resolved: 'done', complete: 'done', completed: 'done', fixed: 'done', finished: 'done',
  'wont do': 'archived', wontdo: 'archived', wontfix: 'archived', 'wont fix': 'archived', cancelled: 'archived',
  canceled: 'archived', 'not planned': 'archived', archived: 'archived',
};

export const LIMITS = { title: 500, description: 60_000, labels: 50, label: 100, service: 200, author: 200, comment: 60_000, key: 200, email: 254 } as const;

/** The status a word means, or undefined. */
export function statusOf(value: unknown): CardStatus | undefined {
  if (typeof value !== 'string') return undefined;
  const word = value.toLowerCase().replace(/['’‘`]/g, '').replace(/[_-]+/g, ' ').replace(/\s+/g, ' ').trim();
  return Object.hasOwn(STATUS_SYNONYMS, word) ? STATUS_SYNONYMS[word] : undefined;
}

/** The priority a word means (any case, spaces around ignored), or undefined. */
export function priorityOf(value: unknown): CardPriority | undefined {
  if (typeof value !== 'string') return undefined;
  const word = value.trim().toLowerCase();
  return (CARD_PRIORITIES as readonly string[]).includes(word) ? (word as CardPriority) : undefined;
}

/**
 * The key prefix, chosen from the organization's name when its first card is created and kept from then on:
 * accents dropped, ASCII letters only, uppercase; with two or more words, their initials (at most five: "Acme
 * Platform Team" → APT), with one word its first three letters ("Acme" → ACM); fewer than two letters → OPS.
 */
export function boardPrefix(name: string): string {
  const words = name.normalize('NFKD').replace(/\p{M}/gu, '').toUpperCase().split(/[^A-Z]+/).filter(Boolean);
  const prefix = words.length >= 2 ? words.slice(0, 5).map((w) => w[0]).join('') : (words[0] ?? '').slice(0, 3);
  return prefix.length >= 2 ? prefix : 'OPS';
}
