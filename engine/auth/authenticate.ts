/** Bearer credentials → a Caller, with one query per request (key and organization joined). */
import { prepared, sqlExecutor } from '../persistence/sql.ts';
import { randomUUID } from 'node:crypto';
import { currentRequestId, noteCaller } from '../observability/context.ts';
import { ApiError } from '../errors.ts';
import { hashToken } from '../crypto.ts';
import type { Database } from '../persistence/database.ts';
import { isPlan, type Feature } from '../plans.ts';
import type { ApiTransport, Caller, Organization } from './caller.ts';
import type { SharedCache } from '../persistence/shared-cache.ts';
import { API_KEY_PREFIX, endpointOfScopes, PERSONAL_TOKEN_PREFIX, roleOfScopes } from './credentials.ts';

const ENDPOINT_NAMES = { rest: 'the configuration API (/api/v1/config)', mcp: 'the agent-tool endpoint (/api/mcp)' };

function unauthorized(): ApiError {
  return new ApiError('unauthorized', 'Send a valid credential as "Authorization: Bearer <key>"; this one is missing, unknown or revoked.', {
    headers: { 'WWW-Authenticate': 'Bearer' },
  });
}

export function bearerToken(header: string | undefined): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) throw unauthorized();
  return match[1]!;
}

export function organizationFromRow(row: Record<string, unknown>): Organization {
  return {
    id: String(row.id),
    name: String(row.name),
    plan: isPlan(row.plan) ? row.plan : 'free',
    disabled: Boolean(row.disabled),
    features: (typeof row.features === 'string' ? JSON.parse(row.features) : (row.features ?? {})) as Record<string, boolean>,
    flags: (typeof row.flags === 'string' ? JSON.parse(row.flags) : (row.flags ?? {})) as Record<string, unknown>,
  };
}

export async function loadOrganization(db: Database, id: string): Promise<Organization | null> {
  const [row] = await sqlExecutor(db)('select id, name, plan, disabled, features, flags from organizations where id = ?', [id]);
  return row ? organizationFromRow(row) : null;
}

/** Resolves an organization API key for one endpoint; personal tokens are refused here by name. */
/** What an API key resolves to: the joined key and organization row. */
export type KeyRecord = Record<string, unknown>;

export async function authenticateApiKey(
  db: Database,
  cache: SharedCache<KeyRecord>,
  header: string | undefined,
  transport: ApiTransport,
  endpointFeature: Feature,
): Promise<Caller> {
  const token = bearerToken(header);
  const sql = sqlExecutor(db);
  if (token.startsWith(PERSONAL_TOKEN_PREFIX)) {
    const [pat] = await sql('select id from personal_tokens where token_hash = ? and revoked_at is null', [hashToken(token)]);
    if (!pat) throw unauthorized();
    throw new ApiError('personal_token_not_accepted', `Personal access tokens are not accepted by ${ENDPOINT_NAMES[transport]}; use an organization API key.`);
  }
  if (!token.startsWith(API_KEY_PREFIX)) throw unauthorized();
  const hash = hashToken(token);
  let row = cache.get(hash);
  if (!row) {
    const generation = cache.generation;
    [row] = await sql(
      prepared(`select k.id as key_id, k.scopes, o.id, o.name, o.plan, o.disabled, o.features, o.flags
         from api_keys k join organizations o on o.id = k.organization_id
        where k.key_hash = ? and k.revoked_at is null`),
      [hash],
    );
    if (!row) throw unauthorized();
    cache.set(hash, row, generation);
  }
  const organization = organizationFromRow(row);
  if (organization.disabled) throw new ApiError('organization_disabled', 'This organization is disabled; its keys and tokens do not work.');
  const scopes = (typeof row.scopes === 'string' ? JSON.parse(row.scopes) : row.scopes) as string[];
  const keyEndpoint = endpointOfScopes(scopes);
  if (keyEndpoint !== transport) {
    throw new ApiError('forbidden', `This key's scopes (${scopes.join(', ')}) work only at ${ENDPOINT_NAMES[keyEndpoint ?? 'rest']}, not at ${ENDPOINT_NAMES[transport]}.`);
  }
  noteCaller(organization.id, String(row.key_id));
  return {
    organization,
    credential: { kind: 'api_key', id: String(row.key_id), scopes },
    role: roleOfScopes(scopes),
    transport,
    endpointFeature,
    requestId: currentRequestId() ?? randomUUID(),
  };
}
