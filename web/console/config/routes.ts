/** The configuration pages' routes (mounted by ../routes.ts): one set for every family the registry holds. */
import type Router from '@koa/router';
import type { Services } from '../../../engine/services.ts';
import { screen } from '../page.ts';
import { actionScreen, configIndexScreen, createScreen, deleteScreen, familyScreen, moveScreen, newRowScreen, rowScreen, saveScreen } from './screens.ts';

export function configRoutes(router: Router, services: Services): void {
  const at = (run: Parameters<typeof screen>[2]) => screen(services, '/config', run);
  router.get('/config', at(configIndexScreen));
  router.get('/config/:family', at(familyScreen));
  router.post('/config/:family', at(createScreen));
  router.get('/config/:family/new', at(newRowScreen));
  router.get('/config/:family/:id', at(rowScreen));
  router.post('/config/:family/:id', at(saveScreen));
  router.post('/config/:family/:id/delete', at(deleteScreen));
  router.post('/config/:family/:id/move', at(moveScreen));
  router.post('/config/:family/:id/actions/:action', at(actionScreen));
}
