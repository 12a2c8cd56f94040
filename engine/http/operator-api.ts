/** The operator API (`/api/admin/v1`): the back office of a self-hosted deployment. */
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { ApiError, validationFailed } from '../errors.ts';
import { isUuid, unstorableText } from '../validation.ts';
import { constantTimeEqual, hashToken } from '../crypto.ts';
import type { Services } from '../services.ts';
import { auditLogPage, OPERATOR_AUDIT_LOG_LIMITS } from '../operations/audit-log.ts';
import { linkNext, pageQuery } from './page-links.ts';
import * as orgs from '../admin/organizations.ts';
import * as users from '../admin/users.ts';
import { bearerToken } from '../auth/authenticate.ts';
import type { FailureLimiter } from './rate-limit.ts';

export const OPERATOR_PREFIX = '/api/admin/v1';

/**
 * Failed operator authentications allowed per client address in a window (as sign-in's per address): then every
 * request from that address, a right token included, is 429 with Retry-After until the window passes.
 */
export const OPERATOR_FAILURE_LIMIT = { points: 30, durationSeconds: 900 } as const;

function tooManyFailures(wait: number): ApiError {
  return new ApiError('rate_limited', `Too many failed operator authentications from this address; retry in ${wait} seconds.`, {
    headers: { 'Retry-After': String(wait) },
    extra: { retry_after: wait },
  });
}

/** 401 unless the request carries the operator token (the operator API, /metrics); 429 once its address failed too often. */
export async function requireOperator(ctx: Context, operatorTokenHash: string, failures?: FailureLimiter): Promise<void> {
  const key = `operator:${ctx.ip}`;
  const blocked = failures ? await failures.waiting(key) : null;
  if (blocked !== null) throw tooManyFailures(blocked);
  let refusal: ApiError | null = null;
  try {
    const token = bearerToken(ctx.get('authorization'));
    if (!constantTimeEqual(hashToken(token), operatorTokenHash)) refusal = new ApiError('unauthorized', 'That is not the operator token.');
  } catch {
    refusal = new ApiError('unauthorized', 'Send the operator token as "Authorization: Bearer <token>".');
  }
  if (!refusal) return;
  const counted = failures ? await failures.take(key) : null;
  throw counted?.retryAfter ? tooManyFailures(counted.retryAfter) : refusal;
}

export function operatorApi(services: Services, operatorTokenHash: string, failures?: FailureLimiter) {
  const router = new Router({ prefix: OPERATOR_PREFIX });
  const body = (ctx: Context) => {
    const parsed = (ctx.request as unknown as { body?: unknown }).body ?? {};
    const unstorable = unstorableText(parsed);
    if (unstorable) throw validationFailed([{ field: 'body', message: unstorable }]);
    return parsed;
  };

  router.use(async (ctx: Context, next: Next) => {
    await requireOperator(ctx, operatorTokenHash, failures);
    await next();
    // any operator change may revoke a key or change a plan: credentials are looked up afresh from now on
    if (ctx.method !== 'GET') services.credentials.clear();
  });

  router.post('/organizations', async (ctx) => {
    ctx.status = 201;
    ctx.body = await orgs.createOrganization(services, body(ctx));
  });
  router.get('/organizations', async (ctx) => {
    ctx.body = await orgs.listOrganizations(services);
  });
  router.get('/organizations/:id/api_keys', async (ctx) => {
    ctx.body = await orgs.listApiKeys(services, uuidParam(ctx.params.id));
  });
  router.get('/organizations/:id', async (ctx) => {
    ctx.body = await orgs.organizationView(services, uuidParam(ctx.params.id));
  });
  router.patch('/organizations/:id', async (ctx) => {
    ctx.body = await orgs.patchOrganization(services, uuidParam(ctx.params.id), body(ctx));
  });
  router.post('/organizations/:id/api_keys', async (ctx) => {
    ctx.status = 201;
    ctx.body = await orgs.createApiKey(services, uuidParam(ctx.params.id), body(ctx));
  });
  router.delete('/organizations/:id/api_keys/:keyId', async (ctx) => {
    await orgs.revokeApiKey(services, uuidParam(ctx.params.id), uuidParam(ctx.params.keyId));
    ctx.status = 204;
  });
  router.post('/users', async (ctx) => {
    ctx.status = 201;
    ctx.body = await users.createUser(services, body(ctx));
  });
  router.put('/users/:userId/password', async (ctx) => {
    await users.setPassword(services, uuidParam(ctx.params.userId), body(ctx));
    ctx.status = 204;
  });
  router.post('/users/:userId/sign_in_link', async (ctx) => {
    ctx.status = 201;
    ctx.body = await users.signInLink(services, uuidParam(ctx.params.userId));
  });
  router.put('/organizations/:id/members/:userId', async (ctx) => {
    ctx.body = await users.putMember(services, uuidParam(ctx.params.id), uuidParam(ctx.params.userId), body(ctx));
  });
  router.delete('/organizations/:id/members/:userId', async (ctx) => {
    await users.deleteMember(services, uuidParam(ctx.params.id), uuidParam(ctx.params.userId));
    ctx.status = 204;
  });
  router.post('/users/:userId/tokens', async (ctx) => {
    ctx.status = 201;
    ctx.body = await users.createPersonalToken(services, uuidParam(ctx.params.userId), body(ctx));
  });
  router.post('/organizations/:id/webhook_token/rotate', async (ctx) => {
    ctx.body = await orgs.rotateWebhookToken(services, uuidParam(ctx.params.id));
  });
  router.post('/organizations/:id/webhook_token/revoke_previous', async (ctx) => {
    await orgs.revokePreviousWebhookToken(services, uuidParam(ctx.params.id));
    ctx.status = 204;
  });
  router.get('/organizations/:id/audit_log', async (ctx) => {
    const id = uuidParam(ctx.params.id);
    await orgs.organizationView(services, id);
    const page = await auditLogPage(services, id, pageQuery(ctx), OPERATOR_AUDIT_LOG_LIMITS);
    ctx.body = page;
    linkNext(ctx, services.config.publicUrl, page.next_cursor);
  });
  return router;
}

/** Ids in operator paths are uuids; anything else cannot exist (and must not reach a uuid column). */
function uuidParam(value: string | undefined): string {
  if (!isUuid(value)) {
    throw new ApiError('not_found', 'No such organization, user or key exists.');
  }
  return value.toLowerCase();
}
