/**
 * Issue 19: every request the service makes to an address an organization or a payload chose leaves through the
 * guarded client (outbound/net/http.ts). This reads the source of every module the service runs (engine/,
 * webhooks/, domain/, outbound/, web/, resources/, export/, bin/; not test/ or bench/) with the TypeScript
 * parser, so comments and strings do not count, and fails naming the file and line of any other way out:
 * - the global `fetch`, `WebSocket`, `EventSource` or `XMLHttpRequest` (called, or passed on as a value);
 * - `request`, `get`, `connect` or `createConnection` of node:http, node:https, node:tls or node:net (through
 *   the module's default or namespace import, or imported by name);
 * - importing an HTTP, WebSocket or socket client library (undici, node-fetch, axios, got, ws, node:http2,
 *   node:dgram) or nodemailer.
 * The exceptions, each with its reason, are in ALLOWED.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import ts from 'typescript';

const ROOT = new URL('../../', import.meta.url).pathname;
const SCANNED = ['engine', 'webhooks', 'domain', 'outbound', 'web', 'resources', 'export', 'bin'];

const ALLOWED: Record<string, string> = {
  'outbound/net/http.ts': 'the guarded client itself: the address policy, pinned lookups, deadlines and size caps live here',
  'outbound/email/transport.ts': 'SMTP through nodemailer to the operator\'s own VIGIL_SMTP_URL: not HTTP, and no organization or payload chooses the address (recipients are addresses on that server, not hosts)',
  'bin/cli/client.ts': 'the operator CLI, run by a person on their own machine against the Vigil URL they typed: not the service making a request',
  'export/remote.ts': 'the plan/apply CLI, run by a person on their own machine against the Vigil URL they typed (--url): not the service making a request',
};

const NET_MODULES = new Set(['http', 'https', 'tls', 'net'].flatMap((m) => [m, `node:${m}`]));
const NET_CALLS = new Set(['request', 'get', 'connect', 'createConnection']);
const CLIENT_LIBRARIES = new Set(['undici', 'node-fetch', 'axios', 'got', 'ws', 'nodemailer', 'http2', 'node:http2', 'dgram', 'node:dgram']);
const GLOBALS = new Set(['fetch', 'WebSocket', 'EventSource', 'XMLHttpRequest']);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : files(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every way out a module's source takes, as "line: what". */
function waysOut(source: string, fileName = 'module.ts'): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) => found.push(`${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}`);
  const netBindings = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const from = node.moduleSpecifier.text;
      const clause = node.importClause;
      if (CLIENT_LIBRARIES.has(from) && !clause?.isTypeOnly) at(node, `imports ${from}`);
      if (NET_MODULES.has(from) && clause && !clause.isTypeOnly) {
        if (clause.name) netBindings.add(clause.name.text);
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) netBindings.add(bindings.name.text);
        if (bindings && ts.isNamedImports(bindings)) {
          for (const element of bindings.elements) {
            const imported = (element.propertyName ?? element.name).text;
            if (!element.isTypeOnly && NET_CALLS.has(imported)) at(element, `imports ${imported} from ${from}`);
          }
        }
      }
      return;
    }
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && netBindings.has(node.expression.text) && NET_CALLS.has(node.name.text)) {
      at(node, `${node.expression.text}.${node.name.text}`);
    }
    if (ts.isIdentifier(node) && GLOBALS.has(node.text) && isValueReference(node)) at(node, node.text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** An identifier that reads a variable (not a property name, a declaration's name, or a type). */
function isValueReference(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false;
  if ((ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) || ts.isPropertySignature(parent) || ts.isMethodDeclaration(parent)
    || ts.isMethodSignature(parent) || ts.isVariableDeclaration(parent) || ts.isParameter(parent) || ts.isFunctionDeclaration(parent)) && parent.name === node) return false;
  if (ts.isTypeReferenceNode(parent) || ts.isTypeQueryNode(parent) || ts.isQualifiedName(parent) || ts.isImportSpecifier(parent) || ts.isExportSpecifier(parent)) return false;
  return true;
}

t.test('the scanner finds each way out, and not words in comments, strings or property names', async (t) => {
  const cases: [string, string[]][] = [
    ['await fetch(url);', ['1: fetch']],
    ['const get = options.http ?? fetch;', ['1: fetch']],
    ['import http from "node:http";\nhttp.request(url);', ['2: http.request']],
    ['import * as https from "https";\nhttps.get(url);', ['2: https.get']],
    ['import tls from "node:tls";\ntls.connect({ host });', ['2: tls.connect']],
    ['import { connect as c } from "node:net";\nc(80);', ['1: imports connect from node:net']],
    ['import { createConnection } from "net";', ['1: imports createConnection from net']],
    ['new WebSocket("wss://x");', ['1: WebSocket']],
    ['import { request } from "undici";', ['1: imports undici']],
    ['// we fetch( nothing here\nconst s = "fetch(url) and http.request";', []],
    ['const o = { fetch: 1 }; o.fetch; type F = typeof fetch;', []],
    ['import http from "node:http";\nhttp.createServer(); const a: http.IncomingMessage | null = null;', []],
    ['import type { IncomingHttpHeaders } from "node:http";', []],
  ];
  for (const [source, expected] of cases) t.same(waysOut(source), expected, source);
});

t.test('no module but the guarded client makes an outbound request', async (t) => {
  const offenders: string[] = [];
  for (const dir of SCANNED) {
    for (const path of files(join(ROOT, dir))) {
      const name = relative(ROOT, path);
      if (Object.hasOwn(ALLOWED, name)) continue;
      for (const way of waysOut(readFileSync(path, 'utf8'), name)) offenders.push(`${name}:${way}`);
    }
  }
  t.same(offenders, [], 'each of these must go through outbound/net/http.ts (OutboundHttp) instead');
  for (const name of Object.keys(ALLOWED)) t.ok(statSync(join(ROOT, name)).isFile(), `the exception ${name} still exists`);
});
