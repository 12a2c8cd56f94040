/**
 * The OpenAPI document and the reference page, through HTTP: served without a credential, valid OpenAPI 3.1
 * (checked by a real validator), generated from the registry (a throwaway family appears without any
 * other change), and without drift: every route the REST transport serves is documented, every documented
 * operation is served, and every answer it gives has a documented status and matches the documented schema.
 */
import { isDeepStrictEqual } from 'node:util';
import t, { type Test } from 'tap';
import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { Validator } from '@seriousme/openapi-schema-validator';
import { actionTransports, DEFAULT_ROLES, defineFamily, type OperationName, type Row } from '../../engine/descriptor.ts';
import { isReadOnly, isWriteOnly, withConfiguredValues } from '../../engine/fields.ts';
import { domainRestPath } from '../../engine/operations/domain.ts';
import { CONFIG, client, startVigil, type Answer } from '../helpers/harness.ts';
import { exampleRows } from '../helpers/example-rows.ts';

type Json = Record<string, any>;

const widget = defineFamily({
  name: 'widget_openapi_probe',
  description: 'A throwaway family <script>alert("x")</script> & co: it exists only in this test, to prove the document is generated.',
  kind: 'collection',
  operations: ['list', 'read', 'create', 'update', 'delete'],
  features: { create: 'compliance' },
  roles: { delete: 'org_admin' },
  naturalKey: ['name'],
  requiredOnCreate: ['name'],
  createOnly: ['size'],
  fields: {
    id: Type.String({ readOnly: true }),
    name: Type.String({ minLength: 1, maxLength: 40, description: 'unique <b>name</b>' }),
    size: Type.Integer({ minimum: 1, maximum: 9, default: 1 }),
    token: Type.String({ minLength: 8, writeOnly: true }),
    token_set: Type.Boolean({ readOnly: true }),
    updated_at: Type.String({ format: 'date-time', readOnly: true }),
  },
  presence: { token_set: 'token' },
  rules: [{ description: 'size must be odd', fields: ['size'], check: (row: Row) => (Number(row.size) % 2 ? [] : [{ field: 'size', message: 'must be odd' }]) }],
  examples: { valid: [{ name: 'probe', size: 3, token: 'probe-secret-1' }], invalid: [], update: { name: 'probe 2' } },
});

const vigil = await startVigil({ extraFamilies: [widget] });
t.teardown(() => vigil.close());
const families = vigil.running.services.registry.families;
const domain = vigil.running.services.domain.filter((op) => op.rest);
const anonymous = client(vigil.url);
const docAnswer = await anonymous.get(`${CONFIG}/openapi.json`);
const doc: Json = docAnswer.body;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** (METHOD path) for every operation the document holds. */
function documented(): Set<string> {
  const out = new Set<string>();
  for (const [path, item] of Object.entries<Json>(doc.paths)) for (const m of METHODS) if (item[m]) out.add(`${m.toUpperCase()} ${path}`);
  return out;
}

const domainPath = domainRestPath;

/** (METHOD path) for every operation the REST route table serves, written from the spec's generic rules. */
function served(): Set<string> {
  const out = new Set<string>();
  const METHOD: Record<OperationName, string> = { list: 'GET', read: 'GET', create: 'POST', update: 'PUT', delete: 'DELETE' };
  for (const d of families) {
    for (const op of d.operations) {
      const onRow = d.kind === 'collection' && (op === 'read' || op === 'update' || op === 'delete');
      out.add(`${METHOD[op]} /${d.name}${onRow ? '/{id}' : ''}`);
    }
    for (const [name, action] of Object.entries(d.actions ?? {})) if (actionTransports(action).includes('rest')) out.add(`POST /${d.name}/{id}/${name}`);
  }
  for (const op of domain) out.add(`${op.rest!.method} ${domainPath(op)}`);
  return out;
}

function walk(node: unknown, visit: (n: Json, path: string) => void, path = '#'): void {
  if (!node || typeof node !== 'object') return;
  visit(node as Json, path);
  for (const [k, v] of Object.entries(node)) walk(v, visit, `${path}/${k}`);
}

/** A copy with every `$ref` replaced by what it points at. */
const deref = (node: unknown): Json => JSON.parse(JSON.stringify(node, (_k, v) => (v && typeof v === 'object' && typeof v.$ref === 'string' ? resolve(v) : v)));

function resolve(node: Json): Json {
  let value = node;
  while (value && typeof value.$ref === 'string') value = value.$ref.slice(2).split('/').reduce((at: Json, k: string) => at?.[k], doc);
  return value;
}

t.test('the document and the page answer without a credential', async (t) => {
  t.equal(docAnswer.status, 200);
  t.match(docAnswer.headers.get('content-type'), /application\/json/);
  t.equal(doc.openapi, '3.1.0');
  t.equal(doc.info.version, '1.0.0', 'the machine-readable description is versioned 1.0.0');
  t.same(doc.servers, [{ url: `${vigil.running.services.config.publicUrl}${CONFIG}` }]);
  const page = await anonymous.get(`${CONFIG}/docs`);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /text\/html/);
  t.match(page.headers.get('content-security-policy'), /default-src 'none'/, 'the page may load nothing from elsewhere');
  t.notMatch(page.body, /<script|<link|<img|<iframe|\ssrc=|url\(/i, 'no script and nothing loaded from elsewhere');
  const withKey = await (await (await vigil.organization('enterprise')).key(['api:config_read'])).get(`${CONFIG}/openapi.json`);
  t.same(withKey.body, doc, 'a credential changes nothing');
  t.equal((await anonymous.get(`${CONFIG}/${families[0]!.name}`)).status, 401, 'the rest of the API still needs a credential');
});

t.test('the document is valid OpenAPI 3.1', async (t) => {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  t.same(result.errors, undefined, 'no schema errors');
  t.ok(result.valid);
  t.equal(validator.version, '3.1');
  const broken = structuredClone(doc);
  delete broken.info;
  broken.paths['/x'] = { get: { responses: { 200: { content: 'nope' } } } };
  t.notOk((await new Validator().validate(broken)).valid, 'the validator does refuse a broken document');
  const refs: string[] = [];
  const unresolved: string[] = [];
  walk(doc, (n, path) => {
    if (typeof n.$ref !== 'string') return;
    refs.push(n.$ref);
    if (!resolve(n)) unresolved.push(`${path}: ${n.$ref}`);
  });
  t.ok(refs.length > 0, 'the document uses $ref');
  t.same(unresolved, [], 'every $ref resolves');
  const ids = [...documented()].map((key) => { const [m, p] = key.split(' '); return doc.paths[p!][m!.toLowerCase()].operationId; });
  t.equal(new Set(ids).size, ids.length, 'operation ids are unique');
});

t.test('no drift: every served route is documented, and nothing else', async (t) => {
  const docs = documented();
  t.ok(served().size > 0, 'the transport serves routes');
  t.same([...served()].filter((route) => !docs.has(route)), [], 'every served route is documented');
  const extra = [...docs].filter((r) => !served().has(r) && !/^GET \/(openapi\.json|docs)$/.test(r));
  t.same(extra, [], 'the document holds no route the transport does not serve');
  t.same(doc.tags.map((tag: Json) => tag.name), [...families.map((f) => f.name), ...new Set(domain.map((op) => op.rest!.path).filter((path) => !families.some((f) => f.name === path))), 'api_reference'], 'one tag per family and per REST domain path (a view of a family\'s row shares its tag), and the reference\'s own');
  for (const d of families) t.equal(doc.tags.find((tag: Json) => tag.name === d.name).description, d.description, `${d.name}: the tag says the descriptor's description`);
});

/** Checks an answer against the documented operation: its status is documented and its body matches. */
const compiled = new Map<unknown, ReturnType<typeof Compile>>();
function conforms(t: Test, method: string, path: string, answer: Answer): void {
  const op = doc.paths[path]?.[method.toLowerCase()];
  const label = `${method} ${path} → ${answer.status}`;
  t.ok(op, `${method} ${path} is documented`);
  t.not(answer.body?.error, 'method_not_allowed', `${label}: served (not 405)`);
  t.notMatch(String(answer.body?.message ?? ''), /^(Nothing is served|There is no resource family)/, `${label}: served (not an unknown path)`);
  const response = op?.responses?.[String(answer.status)];
  t.ok(response, `${label}: the status is documented`);
  if (!response || answer.body === undefined) return;
  const content: Json = resolve(response).content ?? {};
  const type = (value: string | null) => String(value ?? '').split(';')[0]!.trim();
  t.ok(Object.keys(content).map(type).includes(type(answer.headers.get('content-type'))), `${label}: the media type is documented`);
  const schema = content['application/json']?.schema;
  if (!schema) return;
  const dereferenced = deref(schema);
  let validator = compiled.get(schema);
  if (!validator) compiled.set(schema, (validator = Compile(dereferenced)));
  const errors = validator.Check(answer.body) ? [] : [...validator.Errors(answer.body)].map((e) => `${e.instancePath} ${e.message}`);
  t.same(errors, [], `${label}: the body matches the documented schema`);
}

const { resolveRefs, prepareRequired } = exampleRows(vigil);

t.test('every documented operation is served, and answers as documented', async (t) => {
  const org = await vigil.organization('enterprise');
  const api = await org.key(['api:admin']);
  for (const d of families) {
    const path = `/${d.name}`;
    const call = async (method: string, docPath: string, url: string, body?: unknown, headers?: Record<string, string>) => {
      const answer = await api.call(method, `${CONFIG}${url}`, body, headers);
      conforms(t, method, docPath, answer);
      return answer;
    };
    if (d.kind === 'singleton') {
      if (d.operations.includes('read')) await call('GET', path, path);
      if (d.operations.includes('update')) {
        await call('PUT', path, path, d.examples.update, { 'if-match': '"stale"' });
        await call('PUT', path, path, d.examples.update);
      }
      continue;
    }
    await prepareRequired(api, d);
    if (d.operations.includes('list')) await call('GET', path, path);
    let id = 'openapi-probe';
    const example = d.examples.valid[0] ? await resolveRefs(api, d.examples.valid[0]) : {};
    if (d.operations.includes('create')) {
      const made = await call('POST', path, path, example);
      t.equal(made.status, 201, `${d.name}: the example creates a row`);
      id = made.body.data.id;
      await call('POST', path, path, { ...example, no_such_field: 1 });
      if (d.naturalKey) t.equal((await call('POST', path, path, example)).status, 409, `${d.name}: a repeated natural key answers 409`);
    }
    const rowPath = `${path}/{id}`;
    const rowUrl = `${path}/${encodeURIComponent(id)}`;
    if (d.operations.includes('update')) {
      if (!d.operations.includes('create')) t.equal((await call('PUT', rowPath, rowUrl, example)).status, 200, `${d.name}: PUT of a new id creates`);
      await call('PUT', rowPath, rowUrl, d.examples.update, { 'if-match': '"stale"' });
      t.equal((await call('PUT', rowPath, rowUrl, d.examples.update)).status, 200, `${d.name}: the example update applies`);
    }
    if (d.operations.includes('read')) t.equal((await call('GET', rowPath, rowUrl)).status, 200, `${d.name}: the row reads`);
    if (d.operations.includes('delete')) {
      await call('DELETE', rowPath, rowUrl, undefined, { 'if-match': '"stale"' });
      t.equal((await call('DELETE', rowPath, rowUrl)).status, 204, `${d.name}: the row deletes`);
      await call('DELETE', rowPath, `${path}/no-such-row`);
    }
  }
  for (const op of domain) {
    // a by-id operation is called with an id that names nothing (and a POST with its documented example body): its documented 404
    const url = domainPath(op).replace(/\{[^}]+\}/, '00000000-0000-4000-8000-000000000000');
    const example = op.rest!.method === 'POST' ? doc.paths[domainPath(op)].post.requestBody.content['application/json'].examples.request.value : undefined;
    const answer = await api.call(op.rest!.method, `${CONFIG}${url}`, example);
    conforms(t, op.rest!.method, domainPath(op), answer);
    if (op.rest!.param) t.equal(answer.status, 404, `${op.name}: an unknown id answers 404`);
  }
});

t.test('a throwaway family appears with its tag and operations', async (t) => {
  const name = widget.name;
  t.ok(doc.tags.some((tag: Json) => tag.name === name && tag.description === widget.description), 'its tag, described by its descriptor');
  const collection = doc.paths[`/${name}`];
  const row = doc.paths[`/${name}/{id}`];
  t.same(Object.keys(collection).filter((k) => METHODS.includes(k)).sort(), ['get', 'post']);
  t.same(Object.keys(row).filter((k) => METHODS.includes(k)).sort(), ['delete', 'get', 'put']);
  const create = collection.post;
  t.equal(create['x-vigil-feature'], 'compliance');
  t.equal(create['x-vigil-role'], 'member');
  t.match(create.description, 'Needs the compliance feature (enterprise plan); role: member');
  t.same(create['x-vigil-scopes'], ['api:admin'], 'a write needs api:admin');
  t.same(collection.get['x-vigil-scopes'], ['api:config_read', 'api:admin'], 'a read takes either scope');
  t.notOk('security' in create, 'the document-wide bearer requirement applies (a bearer scheme has no scopes to list)');
  t.same(doc.security, [{ api_key: [] }]);
  t.equal(row.delete['x-vigil-role'], 'org_admin');
  t.notOk('x-vigil-feature' in row.delete, 'delete needs no feature');
  t.ok(create.responses['201'].headers.ETag && create.responses['201'].headers.Location, 'create answers ETag and Location');
  t.ok(create.responses['409'], 'a natural key makes 409 possible');
  for (const code of ['400', '401', '403', '413', '415', '422']) t.ok(create.responses[code], `create documents ${code}`);
  t.ok(row.get.responses['200'].headers.ETag && row.put.responses['200'].headers.ETag, 'reads and updates answer an ETag');
  for (const op of [row.put, row.delete]) {
    t.ok(op.parameters.some((p: Json) => resolve(p).name === 'If-Match'), 'If-Match is accepted');
    t.ok(op.responses['412'] && op.responses['404'], '412 and 404 are documented');
  }
  const schemas = doc.components.schemas;
  t.same(Object.keys(schemas[name].properties), ['id', 'name', 'size', 'token_set', 'updated_at'], 'the row: every field except write-only ones');
  t.same(schemas[`${name}.create`].required, ['name']);
  t.same(Object.keys(schemas[`${name}.create`].properties), ['name', 'size', 'token'], 'create: the writable fields');
  t.equal(schemas[`${name}.create`].properties.token.writeOnly, true, 'writeOnly is kept');
  t.equal(schemas[name].properties.id.readOnly, true, 'readOnly is kept');
  t.same(Object.keys(schemas[`${name}.update`].properties), ['name', 'token'], 'update: writable fields minus create-only ones');
  t.match(schemas[`${name}.create`].properties.size.description, 'size must be odd', "a rule's description joins its field's");
  t.match(schemas[`${name}.create`].properties.size.description, /create/i, 'create-only is said');
  const page = (await anonymous.get(`${CONFIG}/docs`)).body as string;
  t.match(page, `id="tag-${name}"`, 'the page has its section');
  t.match(page, 'A throwaway family &#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; co', 'its description is escaped');
  t.match(page, 'unique &#60;b&#62;name&#60;/b&#62;');
  t.notMatch(page, '<script>');
});

t.test('write-only fields are never answered, read-only ones never sent', async (t) => {
  for (const d of families) {
    const schemas = doc.components.schemas;
    for (const [field, schema] of Object.entries(d.fields)) {
      if (isWriteOnly(schema)) t.notOk(field in schemas[d.name].properties, `${d.name}.${field} (write-only) is not in the row`);
      for (const body of ['create', 'update']) {
        const props = schemas[`${d.name}.${body}`]?.properties ?? {};
        if (isReadOnly(schema)) t.notOk(field in props, `${d.name}.${field} (read-only) is not in the ${body} body`);
      }
    }
  }
  const offenders: string[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const m of METHODS) {
      const op = item[m];
      if (!op) continue;
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        walk(deref(response), (n, at) => n.writeOnly && offenders.push(`${m} ${path} ${status}: write-only at ${at}`));
      }
      if (op.requestBody) walk(deref(op.requestBody), (n, at) => n.readOnly && offenders.push(`${m} ${path}: read-only input at ${at}`));
    }
  }
  t.same(offenders, [], 'no answer schema holds a write-only value, no request schema a read-only one');
});

t.test('no update body declares a default: defaults belong to create', async (t) => {
  const defaults: string[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const m of ['put', 'patch']) if (item[m]?.requestBody) walk(deref(item[m].requestBody), (n, at) => 'default' in n && defaults.push(`${m} ${path} ${at}`));
  }
  t.same(defaults, [], 'no default anywhere in a PUT or PATCH body');
  t.equal(doc.components.schemas['teams.create'].properties.member_emails.default?.length, 0, 'the create body keeps its defaults');
  t.notOk('default' in doc.components.schemas['teams.update'].properties.member_emails, 'the update body has none');
});

t.test('facts the descriptors declare are said where a reader looks', async (t) => {
  const OPS: Record<OperationName, [string, boolean]> = { list: ['get', false], create: ['post', false], read: ['get', true], update: ['put', true], delete: ['delete', true] };
  const withoutDescription = (schema: unknown) => {
    const { description: _, ...rest } = JSON.parse(JSON.stringify(schema));
    return rest;
  };
  const altered: string[] = [];
  let copied = 0;
  for (const d of families) {
    // as this deployment publishes it: a field whose values the configuration decides carries them as enum
    for (const [field, schema] of Object.entries(withConfiguredValues(d, vigil.running.services.config).fields)) {
      const copies = ['', '.create'].map((suffix) => doc.components.schemas[`${d.name}${suffix}`]?.properties?.[field]).filter(Boolean);
      copied += copies.length;
      for (const copy of copies) if (!isDeepStrictEqual(withoutDescription(copy), withoutDescription(schema))) altered.push(`${d.name}.${field}`);
      // an update body takes the field without its default: an omitted field keeps its value
      const update = doc.components.schemas[`${d.name}.update`]?.properties?.[field];
      const { default: _, ...undefaulted } = withoutDescription(schema);
      if (update && !isDeepStrictEqual(withoutDescription(update), undefaulted)) altered.push(`${d.name}.${field} (update)`);
    }
  }
  t.ok(copied > 0, 'field schemas are copied into the document');
  t.same(altered, [], 'every field schema is copied as it is, x- keywords included');
  for (const d of families) {
    const row = doc.components.schemas[d.name];
    for (const [field, ref] of Object.entries(d.references ?? {})) t.match(row.properties[field].description, `${ref.family} row`, `${d.name}.${field} names the family it refers to`);
    for (const rule of d.rules ?? []) {
      for (const field of rule.fields) {
        const described = [row, doc.components.schemas[`${d.name}.create`], doc.components.schemas[`${d.name}.update`]].map((s) => s?.properties?.[field]?.description).filter(Boolean);
        t.ok(described.length && described.every((text: string) => text.includes(rule.description)), `${d.name}.${field} carries "${rule.description}"`);
      }
    }
    for (const op of d.operations) {
      const [method, onRow] = OPS[op];
      const documentedOp = doc.paths[`/${d.name}${onRow && d.kind === 'collection' ? '/{id}' : ''}`][method];
      const role = d.roles?.[op] ?? DEFAULT_ROLES[op];
      const feature = d.features?.[op];
      t.equal(documentedOp['x-vigil-role'], role, `${d.name} ${op}: x-vigil-role`);
      t.equal(documentedOp['x-vigil-feature'], feature, `${d.name} ${op}: x-vigil-feature`);
      t.match(documentedOp.description, `role: ${role}`);
      if (feature) t.match(documentedOp.description, `Needs the ${feature} feature`);
      if (op === 'create') {
        // every create can meet a repeat of its Idempotency-Key still running; a natural key adds the existing row
        t.match(documentedOp.responses['409']?.description, /Idempotency-Key/, `${d.name}: 409 for a key still running`);
        t.equal(/exists already/.test(documentedOp.responses['409']?.description), Boolean(d.naturalKey || d.naturalKeyWhile), `${d.name}: a 409 with the existing row exactly when a natural key holds`);
      }
      if (d.archive && op === 'list') t.ok(documentedOp.parameters?.some((p: Json) => resolve(p).name === 'include_archived'), `${d.name}: include_archived is documented`);
    }
  }
  const errorCodes = doc.components.schemas.Error.properties.error.enum;
  t.ok(errorCodes.includes('validation_failed') && errorCodes.includes('precondition_failed'), 'the error codes are enumerated');
});

t.test('every operation with a body, and every family answer with one, carries examples that match their schemas; the page shows them', async (t) => {
  const invalid: string[] = [];
  let checked = 0;
  const examined = (label: string, media: Json | undefined) => {
    const examples = Object.entries<Json>(media?.examples ?? {});
    if (!examples.length) invalid.push(`${label}: no example`);
    const validator = Compile(deref(media?.schema ?? {}));
    for (const [key, example] of examples) {
      checked++;
      if (!validator.Check(example.value)) invalid.push(...[...validator.Errors(example.value)].map((e) => `${label} ${key}: ${e.instancePath} ${e.message}`));
    }
  };
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of METHODS) if (item[method]?.requestBody) examined(`${method} ${path} body`, item[method].requestBody.content['application/json']);
  }
  // answers: a family's create, read and update, and its actions (list answers are left to the pagination work; delete has no body)
  const ANSWERS: Partial<Record<OperationName, [string, boolean, string]>> = { create: ['post', false, '201'], read: ['get', true, '200'], update: ['put', true, '200'] };
  for (const d of families) {
    for (const name of d.operations) {
      const [method, onRow, status] = ANSWERS[name] ?? [];
      if (!method) continue;
      const path = `/${d.name}${onRow && d.kind === 'collection' ? '/{id}' : ''}`;
      examined(`${method} ${path} ${status}`, resolve(doc.paths[path][method].responses[status!]).content['application/json']);
    }
    for (const [name, action] of Object.entries(d.actions ?? {})) {
      if (actionTransports(action).includes('rest')) examined(`post /${d.name}/{id}/${name} 200`, doc.paths[`/${d.name}/{id}/${name}`].post.responses['200'].content['application/json']);
    }
  }
  t.ok(checked > families.length, 'examples are checked');
  t.same(invalid, [], 'every request and answer example is valid against its schema');
  // generated from the descriptor: the throwaway family's own bodies, its write-only token never in an answer
  const create = doc.paths['/widget_openapi_probe'].post;
  t.same(create.requestBody.content['application/json'].examples.example_1.value, widget.examples.valid[0], 'the create example is the descriptor\'s valid body');
  const made = create.responses['201'].content['application/json'].examples.created.value.data;
  t.match(made, { name: 'probe', size: 3, token_set: true }, 'the answer row is built from it');
  t.notOk('token' in made, 'no write-only value in an answer example');
  t.same(doc.paths['/widget_openapi_probe/{id}'].put.requestBody.content['application/json'].examples.change.value, widget.examples.update);
  const page = (await anonymous.get(`${CONFIG}/docs`)).body as string;
  t.match(page, '&#34;payments and billing on-call&#34;', 'the page shows the teams update example');
  t.match(page, 'Example: Only the fields to change');
});

t.test('the reference page names every family and operation', async (t) => {
  const page = (await anonymous.get(`${CONFIG}/docs`)).body as string;
  t.match(page, /^<!doctype html>/);
  for (const d of families) t.match(page, `<h2>${d.name}</h2>`, `${d.name} has a section`);
  for (const op of domain) t.match(page, `id="tag-${op.rest!.path}"`, `${op.rest!.path} has a section`);
  for (const route of documented()) {
    const [method, path] = route.split(' ');
    t.match(page, `${method}</span> <code>${CONFIG}${path}</code>`, `${route} is on the page`);
  }
  t.match(page, 'read-only', 'access is shown');
  t.match(page, 'write-only');
});
