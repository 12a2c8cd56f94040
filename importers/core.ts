/**
 * What every importer shares (`vigil import <source>`): reading a source's REST API (pages, 429 answers waited out
 * as the source asks, every refusal one sentence naming the call), the report of what became of each object, the
 * people file, and writing the three files so that a failed import leaves the folder as it was.
 *
 * An importer is a translator (DESIGN.md, "Importers are translators"): it turns the source's objects into rows of
 * our families and writes them with the export's HCL writer; `vigil plan` and `vigil apply` do the rest. One file per
 * source (`pagerduty.ts`, …) holds the source's calls and its translation, and nothing else.
 *
 * Requests go out with plain `fetch`, not the service's guarded client (outbound/net): this runs on the operator's
 * machine, against the source the operator names with --url, as the CLI's own calls to Vigil do (bin/cli/client.ts).
 */
import { mkdtemp, rename, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { writeHcl, type HclEntry } from '../export/hcl-writer.ts';
import { sanitizeLabel } from '../export/labels.ts';

/** A stop: one sentence naming the call; the folder is left as it was. */
export class ImportFailure extends Error {}

export interface FetchOptions {
  /** waits between attempts (tests inject one that records and returns at once) */
  sleep?: (ms: number) => Promise<void>;
  fetch?: typeof fetch;
  /** attempts of one call answered 429 before the import stops (default 6) */
  attempts?: number;
}

const MAX_WAIT_MS = 120_000;

/** Retry-After as milliseconds: seconds, or an HTTP date; at least one second when it is missing or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number {
  if (header) {
    const seconds = Number(header);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.min(MAX_WAIT_MS, Math.ceil(seconds * 1000));
    const at = Date.parse(header);
    if (Number.isFinite(at)) return Math.min(MAX_WAIT_MS, Math.max(0, at - now));
  }
  return 1000;
}

/** A JSON REST API read with one set of headers; `product` names the source in every sentence. */
export class RestSource {
  readonly base: string;
  readonly product: string;
  readonly headers: Record<string, string>;
  readonly options: FetchOptions;
  /** every wait a 429 asked for, in order (what the report and the tests read) */
  readonly waits: number[] = [];
  calls = 0;

  constructor(product: string, base: string, headers: Record<string, string>, options: FetchOptions = {}) {
    let url: URL;
    try {
      url = new URL(base);
    } catch {
      throw new ImportFailure(`--url must be the ${product} API's absolute http(s) address, such as https://api.pagerduty.com.`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ImportFailure(`--url must be an http or https address of the ${product} API.`);
    this.product = product;
    this.base = url.toString().replace(/\/+$/, '');
    this.headers = headers;
    this.options = options;
  }

  /** How long a 429 asks to wait: its Retry-After (a source that documents another header overrides this). */
  protected waitOf(res: Response): number {
    return retryAfterMs(res.headers.get('retry-after'));
  }

  /** GET `path` with `query` (arrays repeat their key) and the parsed JSON body, or an ImportFailure naming the call. */
  async get(path: string, query: Record<string, string | number | readonly string[]> = {}): Promise<Record<string, unknown>> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) for (const v of [value].flat()) params.append(key, String(v));
    const qs = params.toString();
    const call = `GET ${path}`;
    const url = `${this.base}${path}${qs ? `?${qs}` : ''}`;
    const attempts = this.options.attempts ?? 6;
    const doFetch = this.options.fetch ?? fetch;
    const sleep = this.options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      this.calls++;
      try {
        res = await doFetch(url, { headers: this.headers, redirect: 'error' });
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause;
        throw new ImportFailure(`${this.product} could not be reached for ${call} at ${this.base} (${cause?.code ?? (error as Error).message}).`);
      }
      if (res.status === 429 && attempt < attempts) {
        await res.body?.cancel();
        const wait = this.waitOf(res);
        this.waits.push(wait);
        await sleep(wait);
        continue;
      }
      const text = await res.text();
      if (res.status === 401 || res.status === 403) throw new ImportFailure(`${this.product} refused the token for ${call} (HTTP ${res.status}): check --token and its permissions.`);
      if (res.status === 429) throw new ImportFailure(`${this.product} still answered 429 (rate limited) to ${call} after ${attempts} attempts; try again later.`);
      if (res.status < 200 || res.status > 299) throw new ImportFailure(`${this.product} answered HTTP ${res.status} to ${call}.`);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new ImportFailure(`${this.product} answered ${call} with something that is not JSON; is --url the ${this.product} API?`);
      }
      if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ImportFailure(notDocumented(this.product, call, 'the answer is not an object'));
      return body as Record<string, unknown>;
    }
  }
}

export const notDocumented = (product: string, call: string, what: string) =>
  `${product} answered ${call} in a form that is not its documented one (${what}).`;

/** The outcome of one source object. */
export type Outcome = 'carried' | 'approximate' | 'not carried';

export interface ReportLine {
  kind: string;
  /** how the source names it, with its id */
  source: string;
  outcome: Outcome;
  /** what it became (an HCL address, a people.json entry), or empty */
  became: string;
  /** why it is approximate or not carried */
  reason?: string;
}

/** Where a source's senders are pointed instead. */
export interface SenderLine {
  source: string;
  sender: string;
  url: string;
  note: string;
}

/** Everything an importer found, what it became and why not. */
export class Report {
  readonly lines: ReportLine[] = [];
  readonly senders: SenderLine[] = [];

  add(line: ReportLine): void {
    this.lines.push(line);
  }

  markdown(product: string, url: string): string {
    const sorted = (list: ReportLine[]) => [...list].sort((a, b) => cmp(a.kind, b.kind) || cmp(a.source, b.source) || cmp(a.became, b.became) || cmp(a.reason ?? '', b.reason ?? ''));
    const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
    const table = (list: ReportLine[], why: boolean) => [
      why ? '| kind | object | became | why |' : '| kind | object | became |',
      why ? '|---|---|---|---|' : '|---|---|---|',
      ...sorted(list).map((l) => `| ${cell(l.kind)} | ${cell(l.source)} | ${cell(l.became || '—')} |${why ? ` ${cell(l.reason ?? '')} |` : ''}`),
    ];
    const by = (o: Outcome) => this.lines.filter((l) => l.outcome === o);
    const kinds = [...new Set(this.lines.map((l) => l.kind))].sort(cmp);
    const out = [
      `# Import from ${product}`,
      '',
      `Read from ${url}. \`vigil users import people.json --org <org-id>\` first (the people), then \`vigil plan vigil.tf\` and \`vigil apply vigil.tf\`.`,
      '',
      '| kind | read | carried | approximately | not carried |',
      '|---|---|---|---|---|',
      ...kinds.map((k) => {
        const of = this.lines.filter((l) => l.kind === k);
        const n = (o: Outcome) => of.filter((l) => l.outcome === o).length;
        return `| ${k} | ${of.length} | ${n('carried')} | ${n('approximate')} | ${n('not carried')} |`;
      }),
      '',
      '## Not carried',
      '',
      ...(by('not carried').length ? table(by('not carried'), true) : ['Nothing.']),
      '',
      '## Carried approximately',
      '',
      ...(by('approximate').length ? table(by('approximate'), true) : ['Nothing.']),
      '',
      '## Where the senders point now',
      '',
      'Replace `<vigil>` with your Vigil address (`PUBLIC_URL`) and `<token>` with the organization\'s webhook token (`vigil org show <org-id>`).',
      '',
      ...(this.senders.length
        ? ['| integration | sender | Vigil URL | note |', '|---|---|---|---|', ...[...this.senders].sort((a, b) => cmp(a.source, b.source)).map((s) => `| ${cell(s.source)} | ${cell(s.sender)} | \`${s.url}\` | ${cell(s.note)} |`)]
        : ['No integration was read.']),
      '',
      '## Carried',
      '',
      ...(by('carried').length ? table(by('carried'), false) : ['Nothing.']),
      '',
    ];
    return out.join('\n');
  }
}

export const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** people.json: the people, their role, and what reaches them (created by `vigil users import`). */
/**
 * Vigil's names are natural keys of at most 100 characters: a second object of one name (or one cut short) is told
 * apart by its source id, and each renamed one is remembered for the report.
 */
export class UniqueNames {
  readonly renamed = new Map<string, string>();

  /** The Vigil name of each item, by source id, unique within the list given. */
  of(items: readonly Record<string, unknown>[]): Map<string, string> {
    const names = new Map<string, string>();
    const used = new Set<string>();
    for (const item of items) {
      const id = String(item.id);
      let name = String(item.name).slice(0, 100);
      if (used.has(name)) {
        name = `${name.slice(0, 100 - id.length - 3)} (${id})`;
        this.renamed.set(id, name);
      } else if (name !== String(item.name)) this.renamed.set(id, name);
      used.add(name);
      names.set(id, name);
    }
    return names;
  }

  /** The report's reason for a renamed item, none for another. */
  note(id: string): string[] {
    const name = this.renamed.get(id);
    return name === undefined ? [] : [`named "${name}": another has its name, or it is over 100 characters`];
  }
}

export interface PeopleFile {
  source: string;
  people: Person[];
}
export interface Person {
  email: string;
  name: string;
  role: 'viewer' | 'member' | 'org_admin';
  contact_methods: { key: string; type: 'email' | 'sms' | 'voice'; name: string; address: string }[];
  notification_rules: { contact_method: string; delay_minutes: number; urgency: 'high' | 'low' }[];
}

/** Labels unique within one family, in the order asked: a name's label, then `_2`, `_3`… (export/labels.ts's rule). */
export class Labels {
  private readonly used = new Map<string, Set<string>>();
  take(family: string, text: string): string {
    const used = this.used.get(family) ?? new Set<string>();
    this.used.set(family, used);
    const base = sanitizeLabel(text);
    let label = base;
    for (let n = 2; used.has(label); n++) label = `${base}_${n}`;
    used.add(label);
    return label;
  }
}

export interface ImportResult {
  hcl: { header: string[]; entries: HclEntry[] };
  people: PeopleFile;
  report: Report;
}

/** The three files' text. */
export function renderFiles(product: string, url: string, result: ImportResult): Record<string, string> {
  return {
    'vigil.tf': writeHcl(result.hcl.header, result.hcl.entries),
    'people.json': `${JSON.stringify(result.people, null, 2)}\n`,
    'REPORT.md': result.report.markdown(product, url),
  };
}

/**
 * Writes the files into `out` only once all of them are written: into a new folder beside it first, then renamed
 * into place (the whole folder when `out` does not exist yet, else file by file, each rename atomic). Other files
 * in `out` are left alone.
 */
export async function writeOutput(out: string, files: Record<string, string>): Promise<void> {
  const target = resolve(out);
  const existing = await stat(target).catch(() => null);
  if (existing && !existing.isDirectory()) throw new ImportFailure(`--out ${out} is a file, not a folder.`);
  const parent = dirname(target);
  await mkdir(parent, { recursive: true });
  const temp = await mkdtemp(join(parent, '.vigil-import-'));
  try {
    for (const [name, text] of Object.entries(files)) await writeFile(join(temp, name), text);
    if (!existing) {
      await rename(temp, target);
      return;
    }
    for (const name of Object.keys(files)) await rename(join(temp, name), join(target, name));
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}
