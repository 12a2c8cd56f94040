/**
 * Spectral (the OpenAPI linter API gateways and portals run) with its `spectral:oas` ruleset on the served
 * /openapi.json: no result of any severity. Run through the package's own CLI, offline; a document with a known
 * fault shows the lint does find what it should.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { CONFIG, client, startVigil } from '../helpers/harness.ts';

const vigil = await startVigil();
t.teardown(() => vigil.close());
const document = (await client(vigil.url).get(`${CONFIG}/openapi.json`)).body;
const dir = t.testdir({ 'ruleset.json': JSON.stringify({ extends: ['spectral:oas'] }) });
const cli = createRequire(import.meta.url).resolve('@stoplight/spectral-cli');

interface Result { code: string; severity: number; path: string[]; message: string }

/** Lints a document and answers every result, whatever its severity (0 error … 3 hint). */
async function lint(name: string, doc: unknown): Promise<Result[]> {
  const file = join(dir, `${name}.json`);
  const output = join(dir, `${name}.results.json`);
  writeFileSync(file, JSON.stringify(doc));
  // the exit code says only whether a result reached --fail-severity; the results file says which
  await promisify(execFile)(process.execPath, [cli, 'lint', file, '--ruleset', join(dir, 'ruleset.json'), '--format', 'json', '--output', output, '--fail-severity', 'hint', '--quiet'])
    .catch((error: { code?: number }) => { if (error.code !== 1) throw error; });
  return JSON.parse(readFileSync(output, 'utf8')) as Result[];
}

t.test('the served document: 0 errors, 0 warnings, 0 hints', async (t) => {
  const results = await lint('served', document);
  t.same(results.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`), [], 'no Spectral result');
});

t.test('the lint finds the faults it is there for', async (t) => {
  const faulty = structuredClone(document);
  delete faulty.info.contact;
  const [path, item] = Object.entries<Record<string, Record<string, unknown>>>(faulty.paths).find(([, i]) => i.get)!;
  delete item.get!.description;
  item.get!.security = [{ api_key: ['api:admin'] }];
  const codes = (await lint('faulty', faulty)).map((r) => r.code);
  for (const code of ['info-contact', 'operation-description', 'oas3-operation-security-defined']) t.ok(codes.includes(code), `${code} is reported (${path})`);
});
