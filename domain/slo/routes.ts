/**
 * `GET /api/v1/deploy_gate?service=&environment=`, the address CI systems are given for the deploy gate: the same
 * operation as `GET /api/v1/config/deploy_gate` (check_deploy_gate), served by the configuration API with its
 * credentials, plan and role checks, so both paths answer alike.
 */
import Router from '@koa/router';

export const DEPLOY_GATE_PATH = '/api/v1/deploy_gate';

export function deployGateRoutes(): Router {
  const router = new Router();
  router.get(DEPLOY_GATE_PATH, async (ctx, next) => {
    ctx.path = '/api/v1/config/deploy_gate';
    await next();
  });
  return router;
}
