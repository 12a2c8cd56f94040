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

export const OPERATOR_PREFIX = '/api/admin/v1';

/** 401 unless the request carries the operator token (the operator API, /metrics). */
export function requireOperator(ctx: Context, operatorTokenHash: string): void {
  let token: string;
  try {
    token = bearerToken(ctx.get('authorization'));
  } catch {
    throw new ApiError('unauthorized', 'Send the operator token as "Authorization: Bearer <token>".');
  }
  if (!constantTimeEqual(hashToken(token), operatorTokenHash)) throw new ApiError('unauthorized', 'That is not the operator token.');
}

export function operatorApi(services: Services, operatorTokenHash: string) {
  const router = new Router({ prefix: OPERATOR_PREFIX });
  const body = (ctx: Context) => {
    const parsed = (ctx.request as unknown as { body?: unknown }).body ?? {};
    const unstorable = unstorableText(parsed);
    if (unstorable) throw validationFailed([{ field: 'body', message: unstorable }]);
    return parsed;
  };

  router.use(async (ctx: Context, next: Next) => {
    requireOperator(ctx, operatorTokenHash);
    await next();
    // any operator change may revoke a key or change a plan: credentials are looked up afresh from now on
    if (ctx.method !== 'GET') services.credentials.clear();
  });

  router.post('/organizations', async (ctx) => {
    ctx.status = 201;
    ctx.body = await orgs.createOrganization(services, body(ctx));
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
