/**
 * HTML for people, built with one tagged template: every interpolated value is escaped unless it is already
 * `Html` (made by this tag or by `raw` for constant markup). So escaping is the default and forgetting it is not
 * possible by accident — the safety a template library gives, without a dependency or a build step (Node runs
 * .ts but not .tsx, which rules JSX libraries out here). Arrays of fragments are joined; null, undefined and
 * false render nothing.
 *
 * It is the one way every page and email body of the service is made (the console, the status page, the API
 * reference page, the mail to people), so it lives in the engine, which every layer may import.
 * `npm run lint:imports` (bin/lint-html.ts) refuses a hand-written HTML escaper anywhere else.
 *
 * A value written as a URL attribute (`href`, `src`, `action`, `formaction`) is a link only when `safeUrl` allows
 * it: an http(s) address or a relative one. Any other scheme (`javascript:`, `data:`, `vbscript:` …) is refused
 * and renders `REFUSED_URL` instead, as Go's html/template does, so a stored value can never become script.
 */
export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

/** Text made safe for an element's content or a quoted attribute (every `& < > " '` as a character reference). */
export function htmlText(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What a refused URL attribute holds: a link that goes nowhere and runs nothing. */
export const REFUSED_URL = 'about:invalid#refused';

/**
 * Whether `url` may be a link: http(s) (absolute or protocol-relative) or relative (no scheme). Browsers drop
 * tabs, newlines and leading spaces or control characters before reading a scheme, so this does too
 * (`java\tscript:` is `javascript:`).
 */
export function safeUrl(url: string): boolean {
  const bare = url.replace(/[\u0000-\u0020\u007f]/g, '');
  const scheme = /^([^/?#]*?):/.exec(bare);
  return scheme === null || /^https?$/i.test(scheme[1]!);
}

/** A static text that ends inside a URL attribute: the next value is an address. */
const URL_ATTRIBUTE = /\s(?:href|src|action|formaction)\s*=\s*["']?$/i;

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return htmlText(String(value));
}

/**
 * Whether markup (an `Html` value) holds a safe URL as the browser reads it in an attribute: numeric references
 * decoded, and no named reference but `&amp;`, since `javascript&colon;` is a scheme to a browser.
 */
function safeUrlMarkup(markup: string): boolean {
  const decoded = markup.replace(/&#(x[0-9a-f]{1,6}|\d{1,7});?/gi, (_, n: string) => {
    const code = /^x/i.test(n) ? parseInt(n.slice(1), 16) : Number(n);
    return code <= 0x10ffff ? String.fromCodePoint(code) : '';
  });
  return !/&(?!amp;)[a-z]/i.test(decoded) && safeUrl(decoded.replace(/&amp;/g, '&'));
}

/** A value that starts a URL attribute: escaped like any other, once it is a safe URL. */
function renderUrl(value: Value): string {
  const text = render(value);
  const safe = value instanceof Html || Array.isArray(value) ? safeUrlMarkup(text) : safeUrl(String(value ?? ''));
  return safe ? text : REFUSED_URL;
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += (URL_ATTRIBUTE.test(strings[i]!) ? renderUrl(values[i]!) : render(values[i]!)) + strings[i + 1]!;
  return new Html(out);
}

/** Constant markup written in the code (never a value from a request or the database). */
export const raw = (text: string) => new Html(text);
