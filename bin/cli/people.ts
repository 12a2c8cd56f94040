/**
 * `vigil users import <people.json> --org <org-id>` (operator token): the people an import found (importers/, `vigil
 * import`) become users of the deployment and members of the organization with their role; then their contact methods
 * and notification rules are created through the organization's configuration API, with an org-admin key made for the
 * run and revoked at its end. Contact methods are created unverified: each person confirms theirs before a page uses
 * it. Running it again creates nothing twice (a user, membership, method or rule that is there already is kept).
 */
import { readFile } from 'node:fs/promises';
import { CliError, OPERATOR_PREFIX, path, vigilRequest, type GlobalOptions } from './client.ts';

type Json = Record<string, any>;
const CONFIG = '/api/v1/config';

interface Person {
  email: string;
  name?: string;
  role: string;
  contact_methods?: { key: string; type: string; name: string; address: string }[];
  notification_rules?: { contact_method: string; delay_minutes: number; urgency: string }[];
}

async function readPeople(file: string): Promise<Person[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`could not read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
  }
  let parsed: Json;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(`${file} is not JSON: it should be the people.json \`vigil import\` wrote.`);
  }
  const people = parsed?.people;
  if (!Array.isArray(people) || people.some((p) => !p || typeof p.email !== 'string' || !['viewer', 'member', 'org_admin'].includes(p.role))) {
    throw new CliError(`${file} is not a people file: it needs "people", a list of { email, name, role (viewer, member or org_admin), contact_methods, notification_rules }.`);
  }
  return people as Person[];
}

export async function importPeople(options: GlobalOptions, file: string, org: string): Promise<{ answer: unknown; lines: string[] }> {
  const people = await readPeople(file);
  if (!options.token) throw new CliError('no operator token: pass --token <token> or set VIGIL_ADMIN_TOKEN.');
  const token = options.token;
  const call = async (credential: string, method: string, route: string, body?: unknown) => {
    const { status, parsed } = await vigilRequest(options.url, credential, method, route, body);
    return { status, body: (parsed ?? {}) as Json };
  };
  const refused = (what: string, answer: { status: number; body: Json }) =>
    new CliError(`${what}: ${typeof answer.body.message === 'string' ? answer.body.message : `HTTP ${answer.status}`}`, (answer.body.errors ?? []).map((e: Json) => `  ${e.field}: ${e.message}`));
  const operator = (method: string, route: string, body?: unknown) => call(token, method, `${OPERATOR_PREFIX}${route}`, body);

  const orgAnswer = await operator('GET', path('organizations', org));
  if (orgAnswer.status !== 200) throw refused(`organization ${org}`, orgAnswer);

  const counts = { users: 0, existing: 0, members: 0, methods: 0, rules: 0 };
  for (const person of people) {
    let created = await operator('POST', '/users', { email: person.email, ...(person.name ? { name: person.name } : {}) });
    let userId: string;
    if (created.status === 201) {
      userId = created.body.id;
      counts.users++;
    } else if (created.status === 409 && typeof created.body.data?.id === 'string') {
      userId = created.body.data.id;
      counts.existing++;
    } else throw refused(`creating user ${person.email}`, created);
    created = await operator('PUT', path('organizations', org, 'members', userId), { role: person.role });
    if (created.status !== 200) throw refused(`making ${person.email} a member`, created);
    counts.members++;
  }

  // contact methods and rules: through the configuration API, as an org admin key made for this run
  const keyAnswer = await operator('POST', path('organizations', org, 'api_keys'), { name: 'vigil users import', scopes: ['api:admin'] });
  if (keyAnswer.status !== 201) throw refused('making a key for the contact methods', keyAnswer);
  const key = String(keyAnswer.body.key);
  try {
    const listAll = async (family: string): Promise<Json[]> => {
      const rows: Json[] = [];
      for (let cursor: string | null = null; ; ) {
        const answer = await call(key, 'GET', `${CONFIG}/${family}?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        if (answer.status !== 200) throw refused(`listing ${family}`, answer);
        rows.push(...(answer.body.data as Json[]));
        cursor = answer.body.next_cursor ?? null;
        if (!cursor) return rows;
      }
    };
    const methods = await listAll('contact_methods');
    const rules = await listAll('notification_rules');
    for (const person of people) {
      const email = person.email.toLowerCase();
      const ids = new Map<string, string>();
      for (const m of person.contact_methods ?? []) {
        const found = methods.find((x) => x.email === email && x.type === m.type && (x.address === m.address || x.address === m.address.toLowerCase()));
        if (found) {
          ids.set(m.key, found.id);
          continue;
        }
        const answer = await call(key, 'POST', `${CONFIG}/contact_methods`, { email, type: m.type, name: m.name, address: m.address });
        if (answer.status !== 201) throw refused(`creating ${email}'s contact method ${m.key}`, answer);
        ids.set(m.key, answer.body.data.id);
        methods.push(answer.body.data);
        counts.methods++;
      }
      for (const r of person.notification_rules ?? []) {
        const method = ids.get(r.contact_method);
        if (!method) throw new CliError(`${file}: ${email}'s notification rule names contact method "${r.contact_method}", which is not one of theirs.`);
        if (rules.some((x) => x.email === email && x.contact_method_id === method && x.delay_minutes === r.delay_minutes && x.urgency === r.urgency)) continue;
        const answer = await call(key, 'POST', `${CONFIG}/notification_rules`, { email, contact_method_id: method, delay_minutes: r.delay_minutes, urgency: r.urgency });
        if (answer.status !== 201) throw refused(`creating ${email}'s notification rule`, answer);
        counts.rules++;
      }
    }
  } finally {
    await operator('DELETE', path('organizations', org, 'api_keys', String(keyAnswer.body.id)));
  }
  return {
    answer: counts,
    lines: [
      `${people.length} people: ${counts.users} users created (${counts.existing} already there), ${counts.members} memberships set in organization ${org};`,
      `${counts.methods} contact methods (unverified: each person confirms theirs) and ${counts.rules} notification rules created.`,
    ],
  };
}
