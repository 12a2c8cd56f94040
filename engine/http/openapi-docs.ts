/**
 * The readable reference page, rendered on the server from the OpenAPI document alone (so it cannot say
 * something the document does not): one section per tag, each operation with its method, path, role and
 * feature, its inputs as a table (type, limits, default, read-only / write-only, description), its answers,
 * and the fields of the family's row. Plain HTML with inline styles: no script and nothing fetched from
 * elsewhere, since a deployment may have no internet. Every text from the document goes through the one template
 * (engine/html.ts), so it is escaped by construction.
 */
import { html, raw, type Html } from '../html.ts';
import type { Json } from './openapi-schemas.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Text where `backticks` become code spans; everything else stays text. */
function prose(text: unknown): Html {
  return html`${String(text ?? '').split(/`([^`]+)`/).map((part, i) => (i % 2 ? html`<code>${part}</code>` : part))}`;
}

const code = (text: unknown) => html`<code>${typeof text === 'string' ? text : JSON.stringify(text)}</code>`;

/** A media type's examples (`examples` by name, or a lone `example`) as preformatted JSON, each under its summary. */
function examplesHtml(media: Json | undefined): Html[] {
  const named = Object.values((media?.examples ?? {}) as Record<string, Json>);
  const all = named.length ? named : media && 'example' in media ? [{ value: media.example }] : [];
  return all.map((e) => html`<p class="example">Example${e.summary ? html`: ${prose(e.summary)}` : ''}</p><pre><code>${JSON.stringify(e.value, null, 2)}</code></pre>`);
}

/** Reads schemas of one document: `$ref`s followed, types and limits said in words. */
class SchemaReader {
  readonly document: Json;
  constructor(document: Json) {
    this.document = document;
  }

  resolve(node: unknown): Json {
    let value = node as Json;
    for (let hops = 0; value && typeof value.$ref === 'string' && hops < 10; hops++) {
      value = String(value.$ref).replace(/^#\//, '').split('/').reduce<Json>((at, key) => (at?.[key] ?? {}) as Json, this.document);
    }
    return value ?? {};
  }

  private members(s: Json): Json[] {
    return Array.isArray(s.anyOf) ? (s.anyOf as Json[]).map((m) => this.resolve(m)) : [s];
  }

  private nonNull(s: Json): Json[] {
    return this.members(s).filter((m) => m.type !== 'null');
  }

  typeText(schema: Json): string {
    const s = this.resolve(schema);
    if (Array.isArray(s.anyOf)) {
      const rest = this.nonNull(s);
      const nullable = rest.length < (s.anyOf as unknown[]).length ? ' or null' : '';
      if (rest.length && rest.every((m) => 'const' in m)) return `one of ${rest.map((m) => JSON.stringify(m.const)).join(', ')}${nullable}`;
      return `${rest.map((m) => this.typeText(m)).join(' or ')}${nullable}`;
    }
    if ('const' in s) return JSON.stringify(s.const);
    if (Array.isArray(s.enum)) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`;
    if (s.type === 'array') return `array of ${this.typeText((s.items ?? {}) as Json)}`;
    if (s.type === 'object' && s.properties) return `object { ${Object.keys(s.properties as Json).join(', ')} }`;
    if (s.format) return `${String(s.type ?? 'value')} (${String(s.format)})`;
    return String(s.type ?? 'any JSON value');
  }

  limits(schema: Json): string {
    const out: string[] = [];
    for (const s of this.nonNull(this.resolve(schema))) {
      const [min, max] = [s.minLength, s.maxLength];
      if (min !== undefined && max !== undefined) out.push(`${min} to ${max} characters`);
      else if (max !== undefined) out.push(`at most ${max} characters`);
      else if (min !== undefined && min !== 0) out.push(`at least ${min} character${min === 1 ? '' : 's'}`);
      if (s.minimum !== undefined && s.maximum !== undefined) out.push(`${s.minimum} to ${s.maximum}`);
      else if (s.minimum !== undefined) out.push(`at least ${s.minimum}`);
      else if (s.maximum !== undefined) out.push(`at most ${s.maximum}`);
      if (s.minItems !== undefined) out.push(`at least ${s.minItems} items`);
      if (s.maxItems !== undefined) out.push(`at most ${s.maxItems} items`);
      if (typeof s['x-format-description'] === 'string') out.push(s['x-format-description']);
      else if (typeof s.pattern === 'string') out.push(`matches ${s.pattern}`);
      if (s.additionalProperties === false && s.type === 'object') out.push('no other keys');
      if (s.type === 'array' && s.items) {
        const each = this.limits(s.items as Json);
        if (each) out.push(`each: ${each}`);
      }
    }
    return out.join('; ');
  }

  /** The path every server URL puts before the document's paths (`/api/v1/config`). */
  serverPath(): string {
    const url = String(((this.document.servers as Json[] | undefined)?.[0]?.url) ?? '');
    try {
      return new URL(url).pathname.replace(/\/$/, '');
    } catch {
      return '';
    }
  }
}

function fieldsTable(reader: SchemaReader, schema: Json, required: readonly string[], requiredWord: string): Html {
  const properties = (reader.resolve(schema).properties ?? {}) as Record<string, Json>;
  const rows = Object.entries(properties).map(([name, rawSchema]) => {
    const s = reader.resolve(rawSchema);
    const access = [required.includes(name) ? requiredWord : '', s.readOnly ? 'read-only' : '', s.writeOnly ? 'write-only' : ''].filter(Boolean).join(', ');
    return html`<tr><td>${code(name)}</td><td>${reader.typeText(s)}</td><td>${reader.limits(s)}</td><td>${'default' in s ? code(s.default) : ''}</td><td>${access}</td><td>${prose(s.description)}</td></tr>`;
  });
  if (!rows.length) return html`<p>No fields.</p>`;
  return html`<table><thead><tr><th>field</th><th>type</th><th>limits</th><th>default</th><th>access</th><th>description</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** Who may call an operation: role, feature and the keys it takes. */
function operationMeta(op: Json): Html[] {
  const scopes = (op['x-vigil-scopes'] ?? []) as string[];
  const meta = [
    op['x-vigil-role'] ? html`role: ${code(op['x-vigil-role'])}` : null,
    op['x-vigil-feature'] ? html`feature: ${code(op['x-vigil-feature'])}` : html`no feature beyond the endpoint`,
    Array.isArray(op.security) && op.security.length === 0 ? html`no credential` : html`keys: ${scopes.map((s, i) => [i ? ' or ' : '', code(s)])}`,
  ];
  return meta.filter((m): m is Html => m !== null).map((m, i) => html`${i ? ' · ' : ''}${m}`);
}

function parametersTable(reader: SchemaReader, parameters: Json[]): Html | null {
  if (!parameters.length) return null;
  const rows = parameters.map((p) => {
    const schema = reader.resolve(p.schema ?? {});
    const cells = [code(p.name), String(p.in), reader.typeText(schema), reader.limits(schema), 'default' in schema ? code(schema.default) : '', p.required ? 'required' : 'optional', prose(p.description)];
    return html`<tr>${cells.map((c) => html`<td>${c}</td>`)}</tr>`;
  });
  return html`<h4>Parameters</h4><table><thead><tr><th>name</th><th>in</th><th>type</th><th>limits</th><th>default</th><th>access</th><th>description</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function requestBody(reader: SchemaReader, op: Json): Html | null {
  const body = reader.resolve(op.requestBody ?? {});
  const media = (body.content as Json | undefined)?.['application/json'] as Json | undefined;
  if (!media?.schema) return null;
  const schema = reader.resolve(media.schema);
  return html`<h4>Body</h4>${schema.description ? html`<p>${prose(schema.description)}</p>` : ''}${fieldsTable(reader, schema, (schema.required ?? []) as string[], 'required')}${examplesHtml(media)}`;
}

function answers(reader: SchemaReader, op: Json): Html {
  const items = Object.entries((op.responses ?? {}) as Record<string, Json>).map(([status, rawAnswer]) => {
    const r = reader.resolve(rawAnswer);
    const headers = Object.keys((r.headers ?? {}) as Json);
    const media = (r.content as Json | undefined)?.['application/json'] as Json | undefined;
    const headerList = headers.length ? html` <span class="headers">headers: ${headers.map((h, i) => [i ? ', ' : '', code(h)])}</span>` : '';
    return html`<li><strong>${status}</strong> ${prose(r.description)}${headerList}${examplesHtml(media)}</li>`;
  });
  return html`<h4>Answers</h4><ul class="answers">${items}</ul>`;
}

function operation(reader: SchemaReader, method: string, path: string, pathItem: Json, op: Json): Html {
  const parameters = [...((pathItem.parameters ?? []) as Json[]), ...((op.parameters ?? []) as Json[])].map((p) => reader.resolve(p));
  return html`<article class="operation" id="${String(op.operationId ?? `${method}-${path}`)}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${reader.serverPath() + path}</code></h3>
<p class="summary">${prose(op.summary)}</p>
<p class="meta">${operationMeta(op)}</p>
<p>${prose(op.description)}</p>
${[parametersTable(reader, parameters), requestBody(reader, op)].map((part) => part && [part, '\n'])}${answers(reader, op)}</article>`;
}

/** The row schema a tag's answers carry (`data`, or the items of a list's `data`). */
function rowSchemaOf(reader: SchemaReader, ops: Json[]): Json | undefined {
  for (const op of ops) {
    for (const [status, rawAnswer] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
      if (!status.startsWith('2')) continue;
      const schema = reader.resolve(((reader.resolve(rawAnswer).content as Json | undefined)?.['application/json'] as Json | undefined)?.schema ?? {});
      const data = (schema.properties as Json | undefined)?.data as Json | undefined;
      if (data?.$ref) return data;
      if (data && (data.items as Json | undefined)?.$ref) return data.items as Json;
    }
  }
  return undefined;
}

interface RenderedOperation {
  tag: string | undefined;
  html: Html;
  op: Json;
}

/** Every operation of the document, rendered, with the tag it is listed under. */
function operations(reader: SchemaReader): RenderedOperation[] {
  const all: RenderedOperation[] = [];
  for (const [path, item] of Object.entries((reader.document.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (op) all.push({ tag: (op.tags as string[] | undefined)?.[0], html: operation(reader, method, path, item, op), op });
    }
  }
  return all;
}

/** One section per tag: its description, its operations and the fields of its row. */
function tagSection(reader: SchemaReader, tag: Json, all: RenderedOperation[]): Html {
  const name = String(tag.name);
  const ops = all.filter((o) => o.tag === name);
  const row = rowSchemaOf(reader, ops.map((o) => o.op));
  return html`<section id="tag-${name}"><h2>${name}</h2>
<p>${prose(tag.description)}</p>
${ops.map((o) => [o.html, '\n'])}${row ? html`<h3>Fields of each ${name} row</h3>${fieldsTable(reader, row, [], '')}` : ''}
</section>`;
}

/** Fragments one per line. */
const lines = (fragments: Html[]) => fragments.map((f, i) => [i ? '\n' : '', f]);

const STYLE = raw(`
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:1rem 2rem;color:#1d1f23}
code{font:13px ui-monospace,monospace;background:#f1f3f5;padding:0 .2em;border-radius:3px}
pre{background:#f1f3f5;padding:.5rem;border-radius:3px;overflow-x:auto;max-height:24rem}pre code{padding:0}.example{margin:.4rem 0 0;font-size:14px;color:#4a5360}
table{border-collapse:collapse;width:100%;margin:.5rem 0;font-size:14px}th,td{border:1px solid #d7dbe0;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f7f9}section{border-top:2px solid #d7dbe0;margin-top:2rem}article{margin:1.5rem 0 1.5rem 1rem}
.method{display:inline-block;min-width:4.2em;font:bold 13px ui-monospace,monospace;color:#fff;background:#56606b;padding:.1em .4em;border-radius:3px;text-align:center}
.get{background:#2f7d32}.post{background:#1f5fa8}.put{background:#a86a00}.delete{background:#b3261e}.meta{color:#4a525c}.headers{color:#4a525c}
nav ul{columns:3}
`);

export function renderDocs(document: Json): string {
  const reader = new SchemaReader(document);
  const all = operations(reader);
  const tags = (document.tags ?? []) as Json[];
  const untagged = all.filter((o) => o.tag === undefined).map((o) => o.html);
  const info = (document.info ?? {}) as Json;
  const title = `${String(info.title ?? 'API')} ${String(info.version ?? '')}`.trim();
  const intro = lines(String(info.description ?? '').split(/\n\s*\n/).map((p) => html`<p>${prose(p)}</p>`));
  const toc = tags.map((t) => html`<li><a href="#tag-${String(t.name)}">${String(t.name)}</a></li>`);
  const server = (document.servers as Json[] | undefined)?.[0]?.url;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${STYLE}</style></head><body>
<h1>${title}</h1>
${server ? html`<p>Base URL: ${code(server)} · <a href="openapi.json">the OpenAPI document</a></p>` : ''}
${intro}
<nav><h2>Contents</h2><ul>${toc}</ul></nav>
${untagged.length ? html`<section id="about"><h2>This reference</h2>${lines(untagged)}</section>` : ''}
${lines(tags.map((tag) => tagSection(reader, tag, all)))}
</body></html>
`.text;
}
