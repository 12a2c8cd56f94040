/**
 * The readable reference page, rendered on the server from the OpenAPI document alone (so it cannot say
 * something the document does not): one section per tag, each operation with its method, path, role and
 * feature, its inputs as a table (type, limits, default, read-only / write-only, description), its answers,
 * and the fields of the family's row. Plain HTML with inline styles: no script and nothing fetched from
 * elsewhere, since a deployment may have no internet. Every text from the document is escaped.
 */
import type { Json } from './openapi-schemas.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Escaped text where `backticks` become code spans. */
function prose(text: unknown): string {
  return escapeHtml(String(text ?? '')).replace(/`([^`]+)`/g, '<code>$1</code>');
}

/** A media type's examples (`examples` by name, or a lone `example`) as preformatted JSON, each under its summary. */
function examplesHtml(media: Json | undefined): string {
  const named = Object.values((media?.examples ?? {}) as Record<string, Json>);
  const all = named.length ? named : media && 'example' in media ? [{ value: media.example }] : [];
  return all.map((e) => `<p class="example">Example${e.summary ? `: ${prose(e.summary)}` : ''}</p><pre><code>${escapeHtml(JSON.stringify(e.value, null, 2))}</code></pre>`).join('');
}

const code = (text: unknown) => `<code>${escapeHtml(typeof text === 'string' ? text : JSON.stringify(text))}</code>`;

export function renderDocs(document: Json): string {
  const resolve = (node: unknown): Json => {
    let value = node as Json;
    for (let hops = 0; value && typeof value.$ref === 'string' && hops < 10; hops++) {
      value = String(value.$ref).replace(/^#\//, '').split('/').reduce<Json>((at, key) => (at?.[key] ?? {}) as Json, document);
    }
    return value ?? {};
  };
  const members = (s: Json): Json[] => (Array.isArray(s.anyOf) ? (s.anyOf as Json[]).map(resolve) : [s]);
  const nonNull = (s: Json) => members(s).filter((m) => m.type !== 'null');

  function typeText(schema: Json): string {
    const s = resolve(schema);
    if (Array.isArray(s.anyOf)) {
      const rest = nonNull(s);
      const nullable = rest.length < (s.anyOf as unknown[]).length ? ' or null' : '';
      if (rest.length && rest.every((m) => 'const' in m)) return `one of ${rest.map((m) => JSON.stringify(m.const)).join(', ')}${nullable}`;
      return `${rest.map(typeText).join(' or ')}${nullable}`;
    }
    if ('const' in s) return JSON.stringify(s.const);
    if (Array.isArray(s.enum)) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`;
    if (s.type === 'array') return `array of ${typeText((s.items ?? {}) as Json)}`;
    if (s.type === 'object' && s.properties) return `object { ${Object.keys(s.properties as Json).join(', ')} }`;
    if (s.format) return `${String(s.type ?? 'value')} (${String(s.format)})`;
    return String(s.type ?? 'any JSON value');
  }

  function limits(schema: Json): string {
    const out: string[] = [];
    for (const s of nonNull(resolve(schema))) {
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
        const each = limits(s.items as Json);
        if (each) out.push(`each: ${each}`);
      }
    }
    return out.join('; ');
  }

  function fieldsTable(schema: Json, required: readonly string[], requiredWord: string): string {
    const properties = (resolve(schema).properties ?? {}) as Record<string, Json>;
    const rows = Object.entries(properties).map(([name, raw]) => {
      const s = resolve(raw);
      const access = [required.includes(name) ? requiredWord : '', s.readOnly ? 'read-only' : '', s.writeOnly ? 'write-only' : ''].filter(Boolean).join(', ');
      return `<tr><td>${code(name)}</td><td>${escapeHtml(typeText(s))}</td><td>${escapeHtml(limits(s))}</td><td>${'default' in s ? code(s.default) : ''}</td><td>${access}</td><td>${prose(s.description)}</td></tr>`;
    });
    if (!rows.length) return '<p>No fields.</p>';
    return `<table><thead><tr><th>field</th><th>type</th><th>limits</th><th>default</th><th>access</th><th>description</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  }

  const serverPath = (() => {
    const url = String(((document.servers as Json[] | undefined)?.[0]?.url) ?? '');
    try {
      return new URL(url).pathname.replace(/\/$/, '');
    } catch {
      return '';
    }
  })();

  function operation(method: string, path: string, pathItem: Json, op: Json): string {
    const scopes = (op['x-vigil-scopes'] ?? []) as string[];
    const meta = [
      op['x-vigil-role'] ? `role: ${code(op['x-vigil-role'])}` : '',
      op['x-vigil-feature'] ? `feature: ${code(op['x-vigil-feature'])}` : 'no feature beyond the endpoint',
      Array.isArray(op.security) && op.security.length === 0 ? 'no credential' : `keys: ${scopes.map(code).join(' or ')}`,
    ];
    const parameters = [...((pathItem.parameters ?? []) as Json[]), ...((op.parameters ?? []) as Json[])].map(resolve);
    const parts = [
      `<article class="operation" id="${escapeHtml(String(op.operationId ?? `${method}-${path}`))}">`,
      `<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(serverPath + path)}</code></h3>`,
      `<p class="summary">${prose(op.summary)}</p>`,
      `<p class="meta">${meta.filter(Boolean).join(' · ')}</p>`,
      `<p>${prose(op.description)}</p>`,
    ];
    if (parameters.length) {
      const rows = parameters.map((p) => {
        const schema = resolve(p.schema ?? {});
        const cells = [code(p.name), escapeHtml(String(p.in)), escapeHtml(typeText(schema)), escapeHtml(limits(schema)), 'default' in schema ? code(schema.default) : '', p.required ? 'required' : 'optional', prose(p.description)];
        return `<tr>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
      });
      parts.push(`<h4>Parameters</h4><table><thead><tr><th>name</th><th>in</th><th>type</th><th>limits</th><th>default</th><th>access</th><th>description</th></tr></thead><tbody>${rows.join('')}</tbody></table>`);
    }
    const body = resolve(op.requestBody ?? {});
    const bodySchema = (body.content as Json | undefined)?.['application/json'] as Json | undefined;
    if (bodySchema?.schema) {
      const schema = resolve(bodySchema.schema);
      parts.push(`<h4>Body</h4>${schema.description ? `<p>${prose(schema.description)}</p>` : ''}${fieldsTable(schema, (schema.required ?? []) as string[], 'required')}${examplesHtml(bodySchema)}`);
    }
    const answers = Object.entries((op.responses ?? {}) as Record<string, Json>).map(([status, raw]) => {
      const r = resolve(raw);
      const headers = Object.keys((r.headers ?? {}) as Json);
      const media = (r.content as Json | undefined)?.['application/json'] as Json | undefined;
      return `<li><strong>${escapeHtml(status)}</strong> ${prose(r.description)}${headers.length ? ` <span class="headers">headers: ${headers.map(code).join(', ')}</span>` : ''}${examplesHtml(media)}</li>`;
    });
    parts.push(`<h4>Answers</h4><ul class="answers">${answers.join('')}</ul></article>`);
    return parts.join('\n');
  }

  /** The row schema a tag's answers carry (`data`, or the items of a list's `data`). */
  function rowSchemaOf(ops: Json[]): Json | undefined {
    for (const op of ops) {
      for (const [status, raw] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
        if (!status.startsWith('2')) continue;
        const schema = resolve(((resolve(raw).content as Json | undefined)?.['application/json'] as Json | undefined)?.schema ?? {});
        const data = (schema.properties as Json | undefined)?.data as Json | undefined;
        if (data?.$ref) return data;
        if (data && (data.items as Json | undefined)?.$ref) return data.items as Json;
      }
    }
    return undefined;
  }

  const all: { tag: string | undefined; html: string; op: Json }[] = [];
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (op) all.push({ tag: (op.tags as string[] | undefined)?.[0], html: operation(method, path, item, op), op });
    }
  }
  const tags = (document.tags ?? []) as Json[];
  const sections = tags.map((tag) => {
    const name = String(tag.name);
    const ops = all.filter((o) => o.tag === name);
    const row = rowSchemaOf(ops.map((o) => o.op));
    return [
      `<section id="tag-${escapeHtml(name)}"><h2>${escapeHtml(name)}</h2>`,
      `<p>${prose(tag.description)}</p>`,
      ...ops.map((o) => o.html),
      row ? `<h3>Fields of each ${escapeHtml(name)} row</h3>${fieldsTable(row, [], '')}` : '',
      '</section>',
    ].join('\n');
  });
  const untagged = all.filter((o) => o.tag === undefined).map((o) => o.html);
  const info = (document.info ?? {}) as Json;
  const title = `${String(info.title ?? 'API')} ${String(info.version ?? '')}`.trim();
  const intro = String(info.description ?? '').split(/\n\s*\n/).map((p) => `<p>${prose(p)}</p>`).join('\n');
  const toc = tags.map((t) => `<li><a href="#tag-${escapeHtml(String(t.name))}">${escapeHtml(String(t.name))}</a></li>`).join('');
  const server = (document.servers as Json[] | undefined)?.[0]?.url;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:1rem 2rem;color:#1d1f23}
code{font:13px ui-monospace,monospace;background:#f1f3f5;padding:0 .2em;border-radius:3px}
pre{background:#f1f3f5;padding:.5rem;border-radius:3px;overflow-x:auto;max-height:24rem}pre code{padding:0}.example{margin:.4rem 0 0;font-size:14px;color:#4a5360}
table{border-collapse:collapse;width:100%;margin:.5rem 0;font-size:14px}th,td{border:1px solid #d7dbe0;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f7f9}section{border-top:2px solid #d7dbe0;margin-top:2rem}article{margin:1.5rem 0 1.5rem 1rem}
.method{display:inline-block;min-width:4.2em;font:bold 13px ui-monospace,monospace;color:#fff;background:#56606b;padding:.1em .4em;border-radius:3px;text-align:center}
.get{background:#2f7d32}.post{background:#1f5fa8}.put{background:#a86a00}.delete{background:#b3261e}.meta{color:#4a525c}.headers{color:#4a525c}
nav ul{columns:3}
</style></head><body>
<h1>${escapeHtml(title)}</h1>
${server ? `<p>Base URL: ${code(server)} · <a href="openapi.json">the OpenAPI document</a></p>` : ''}
${intro}
<nav><h2>Contents</h2><ul>${toc}</ul></nav>
${untagged.length ? `<section id="about"><h2>This reference</h2>${untagged.join('\n')}</section>` : ''}
${sections.join('\n')}
</body></html>
`;
}
