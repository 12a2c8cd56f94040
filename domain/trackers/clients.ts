/**
 * Fetching what is already open in a tracker, for run_ticket_import. Each fetcher answers the tracker's raw items
 * (read by the same readers as the webhooks) page by page, up to `MAX_ITEMS` per run.
 *
 * - issue_tracker (Linear): `POST {base_url}/graphql`, `issues(filter: …, first: 100, after: …)` following
 *   `pageInfo.endCursor`; the filter leaves out completed and canceled states and narrows to the rule's team (by key,
 *   or by id when the project is a uuid) and label. Authorization: the stored token as is for a personal API key
 *   (`lin_api_…`), `Bearer <token>` for an OAuth access token.
 * - sprint_tracker (Jira Cloud): `POST {base_url}/rest/api/3/search/jql` with JQL
 *   `project = "<project>" AND statusCategory != Done [AND issuetype = "<item_type>"] ORDER BY created ASC`,
 *   following `nextPageToken`; basic authentication `<account>:<api_token>` (an Atlassian account email and API token).
 * - code_host (GitHub): `GET /search/issues?q=repo:<owner/name> is:issue is:open [label:"<label>"]` through the
 *   organization's app installation (codehost/app.ts: the deployment's code-host API URL and app), pages of 100;
 *   without a `repo` the search covers the account the app is installed on (`user:<account>`).
 *
 * Every call goes through the guarded outbound client (outbound/net/http.ts: the address policy, a 15-second deadline,
 * at most `MAX_ANSWER_BYTES` read) and follows no redirect (a redirect is an error: a token is never sent on to
 * another address). Errors name the call and the status, never a token or the tracker's whole answer; a tracker
 * that gave no answer "could not be reached", whatever kept it from answering (a refused address, a closed port,
 * a timeout, a failed lookup), so an error cannot map the network behind the service.
 */
import { codeHostClient, CodeHostError } from '../../outbound/net/code-host-app.ts';
import type { Services } from '../../engine/services.ts';
import type { OutboundHttp } from '../../outbound/net/http.ts';

/** Items fetched per tracker and run at most (GitHub's search answers 1,000 at most anyway). */
export const MAX_ITEMS = 1000;
const TIMEOUT_MS = 15_000;
/** a page of 100 issues with their descriptions */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
const PAGE = 100;

export class TrackerApiError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TrackerApiError';
  }
}

export interface Credentials {
  baseUrl: string;
  account: string;
  token: string;
}

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

async function postJson(http: OutboundHttp, url: string, body: unknown, headers: Record<string, string>, what: string): Promise<Json> {
  let res;
  try {
    res = await http.request({
      url,
      method: 'POST',
      maxRedirects: 0,
      timeoutMs: TIMEOUT_MS,
      maxResponseBytes: MAX_ANSWER_BYTES,
      purpose: 'ticket import',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'vigil-ticket-import', ...headers },
      body: JSON.stringify(body),
    });
  } catch {
    throw new TrackerApiError(`${what} could not be reached; check base_url.`);
  }
  if (res.status >= 300 && res.status < 400) throw new TrackerApiError(`${what} answered a redirect (HTTP ${res.status}), which is not followed; check base_url.`);
  if (res.truncated) throw new TrackerApiError(`${what} answered more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB.`);
  const text = res.body.toString('utf8');
  if (res.status === 401 || res.status === 403) throw new TrackerApiError(`${what} refused the saved credentials (HTTP ${res.status}); save them again with configure_ticket_integration.`);
  if (res.status < 200 || res.status >= 300) throw new TrackerApiError(`${what} answered HTTP ${res.status}.`);
  try {
    const parsed = JSON.parse(text) as unknown;
    if (isRecord(parsed)) return parsed;
  } catch {
    /* below */
  }
  throw new TrackerApiError(`${what} answered something that is not a JSON object.`);
}

const base = (url: string) => url.replace(/\/+$/, '');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const LINEAR_QUERY = `query VigilImport($filter: IssueFilter, $after: String) {
  issues(filter: $filter, first: ${PAGE}, after: $after) {
    nodes { id identifier title description priority url updatedAt state { name type } team { id key } labels { nodes { name } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

export async function* linearIssues(http: OutboundHttp, credentials: Credentials, config: Record<string, string>): AsyncGenerator<unknown> {
  const filter: Json = { state: { type: { nin: ['completed', 'canceled'] } } };
  if (config.project) filter.team = UUID.test(config.project) ? { id: { eq: config.project } } : { key: { eqIgnoreCase: config.project } };
  if (config.label) filter.labels = { some: { name: { eqIgnoreCase: config.label } } };
  const authorization = credentials.token.startsWith('lin_api_') ? credentials.token : `Bearer ${credentials.token}`;
  let after: string | null = null;
  let count = 0;
  for (;;) {
    const answer = await postJson(http, `${base(credentials.baseUrl)}/graphql`, { query: LINEAR_QUERY, variables: { filter, after } }, { authorization }, 'Linear\'s GraphQL API');
    if (Array.isArray(answer.errors) && answer.errors.length) throw new TrackerApiError('Linear\'s GraphQL API answered errors for the issue query.');
    const issues = isRecord(answer.data) && isRecord(answer.data.issues) ? answer.data.issues : undefined;
    if (!issues || !Array.isArray(issues.nodes)) throw new TrackerApiError('Linear\'s GraphQL API answered no issues list.');
    for (const node of issues.nodes) {
      if (count++ >= MAX_ITEMS) return;
      yield node;
    }
    const page = isRecord(issues.pageInfo) ? issues.pageInfo : {};
    if (page.hasNextPage !== true || typeof page.endCursor !== 'string') return;
    after = page.endCursor;
  }
}

const jql = (value: string) => `"${value.replace(/["\\]/g, '\\$&')}"`;

export function jiraQuery(config: Record<string, string>): string {
  const parts = [];
  if (config.project) parts.push(`project = ${jql(config.project)}`);
  parts.push('statusCategory != Done');
  if (config.item_type) parts.push(`issuetype = ${jql(config.item_type)}`);
  return `${parts.join(' AND ')} ORDER BY created ASC`;
}

const JIRA_FIELDS = ['summary', 'description', 'status', 'resolution', 'issuetype', 'labels', 'priority', 'project', 'updated'];

export async function* jiraIssues(http: OutboundHttp, credentials: Credentials, config: Record<string, string>): AsyncGenerator<unknown> {
  const authorization = `Basic ${Buffer.from(`${credentials.account}:${credentials.token}`).toString('base64')}`;
  let nextPageToken: string | undefined;
  let count = 0;
  for (;;) {
    const body: Json = { jql: jiraQuery(config), fields: JIRA_FIELDS, maxResults: PAGE, ...(nextPageToken ? { nextPageToken } : {}) };
    const answer = await postJson(http, `${base(credentials.baseUrl)}/rest/api/3/search/jql`, body, { authorization }, 'Jira\'s search API');
    if (!Array.isArray(answer.issues)) throw new TrackerApiError('Jira\'s search API answered no issues list.');
    for (const issue of answer.issues) {
      if (count++ >= MAX_ITEMS) return;
      yield issue;
    }
    if (answer.isLast === true || typeof answer.nextPageToken !== 'string' || answer.issues.length === 0) return;
    nextPageToken = answer.nextPageToken;
  }
}

export function githubQuery(config: Record<string, string>, account: string | null): string {
  const scope = config.repo ? `repo:${config.repo}` : account ? `user:${account}` : null;
  if (!scope) throw new TrackerApiError('The code_host rule names no repo and code_host_settings names no account to search.');
  return [scope, 'is:issue', 'is:open', ...(config.label ? [`label:"${config.label.replace(/"/g, '')}"`] : [])].join(' ');
}

export async function* githubIssues(services: Services, installationId: string, query: string): AsyncGenerator<unknown> {
  let client;
  try {
    client = codeHostClient(services, installationId);
  } catch (error) {
    if (error instanceof CodeHostError) throw new TrackerApiError(error.message);
    throw error;
  }
  let count = 0;
  for (let page = 1; page <= Math.ceil(MAX_ITEMS / PAGE); page++) {
    let answer;
    try {
      answer = await client.request('GET', `/search/issues?q=${encodeURIComponent(query)}&per_page=${PAGE}&page=${page}`);
    } catch (error) {
      if (error instanceof CodeHostError) throw new TrackerApiError(error.message);
      throw error;
    }
    const items = isRecord(answer.body) && Array.isArray(answer.body.items) ? answer.body.items : undefined;
    if (!items) throw new TrackerApiError('The code host\'s issue search answered no items list.');
    for (const item of items) {
      if (count++ >= MAX_ITEMS) return;
      yield item;
    }
    if (items.length < PAGE) return;
  }
}
