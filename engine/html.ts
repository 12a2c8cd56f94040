/**
 * HTML for people, built with one tagged template: every interpolated value is escaped unless it is already
 * `Html` (made by this tag or by `raw` for constant markup). So escaping is the default and forgetting it is not
 * possible by accident — the safety a template library gives, without a dependency or a build step (Node runs
 * .ts but not .tsx, which rules JSX libraries out here). Arrays of fragments are joined; null, undefined and
 * false render nothing.
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

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Constant markup written in the code (never a value from a request or the database). */
export const raw = (text: string) => new Html(text);
