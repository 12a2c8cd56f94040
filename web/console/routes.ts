/**
 * The console's routes. Mounted as raw routes (engine/module.ts): its forms post
 * application/x-www-form-urlencoded bodies, read by http.ts, not JSON. Adding a screen is one file exporting a
 * `Screen` and one line here (and one in layout.ts's SECTIONS for a new section).
 */
import Router from '@koa/router';
import type { DomainOperation, Services } from '../../engine/services.ts';
import { stylesheetRoutes } from '../assets/stylesheet.ts';
import { accountScreen, createTokenScreen, revokeTokenScreen } from './account.ts';
import { alertActionScreen, alertScreen, alertsScreen } from './alerts.ts';
import { boardScreen } from './board.ts';
import { configRoutes } from './config/routes.ts';
import { assignScreen, cardScreen, commentScreen, moveScreen } from './card.ts';
import { deliveriesScreen } from './deliveries.ts';
import { deploymentsScreen } from './deployments.ts';
import { seeOther } from './http.ts';
import { onCallScreen, overrideScreen, rotateFeedScreen, scheduleScreen } from './oncall/screens.ts';
import { addMethodScreen, addRuleScreen, deleteMethodScreen, deleteRuleScreen, myPagingScreen, PAGING_SECTION, sendCodeScreen, verifyScreen } from './paging/my-paging.ts';
import { incidentActionScreen, incidentScreen, incidentsScreen } from './incidents.ts';
import { nowAcknowledgeScreen, nowScreen, nowSelectScreen } from './now.ts';
import { INSIGHTS_SECTION, insightsScreen } from './insights.ts';
import { screen } from './page.ts';
import { signInRoutes } from './sign-in.ts';
import type { SignInThrottle } from './sign-in-throttle.ts';

export function consoleRoutes(services: Services, throttle?: SignInThrottle, deliveryLog?: DomainOperation): Router {
  const router = new Router();
  router.use(stylesheetRoutes().routes());
  router.get('/', (ctx) => seeOther(ctx, '/now'));
  signInRoutes(router, services, throttle);
  router.get('/now', screen(services, '/now', nowScreen));
  router.get('/now/select', screen(services, '/now', nowSelectScreen));
  router.post('/now/acknowledge', screen(services, '/now', nowAcknowledgeScreen));
  router.get('/board', screen(services, '/board', boardScreen));
  router.get('/board/:key', screen(services, '/board', cardScreen));
  router.post('/board/:key/move', screen(services, '/board', moveScreen));
  router.post('/board/:key/assign', screen(services, '/board', assignScreen));
  router.post('/board/:key/comment', screen(services, '/board', commentScreen));
  router.get('/alerts', screen(services, '/alerts', alertsScreen));
  router.get('/alerts/:id', screen(services, '/alerts', alertScreen));
  router.post('/alerts/:id/:action', screen(services, '/alerts', alertActionScreen));
  router.get('/incidents', screen(services, '/incidents', incidentsScreen));
  router.get('/incidents/:id', screen(services, '/incidents', incidentScreen));
  router.post('/incidents/:id/:action', screen(services, '/incidents', incidentActionScreen));
  router.get('/oncall', screen(services, '/oncall', onCallScreen));
  router.get('/oncall/schedules/:id', screen(services, '/oncall', scheduleScreen));
  router.post('/oncall/schedules/:id/overrides', screen(services, '/oncall', overrideScreen));
  router.post('/oncall/feeds', screen(services, '/oncall', rotateFeedScreen));
  router.get(PAGING_SECTION, screen(services, PAGING_SECTION, myPagingScreen));
  router.post(`${PAGING_SECTION}/methods`, screen(services, PAGING_SECTION, addMethodScreen));
  router.post(`${PAGING_SECTION}/methods/:id/send`, screen(services, PAGING_SECTION, sendCodeScreen));
  router.post(`${PAGING_SECTION}/methods/:id/verify`, screen(services, PAGING_SECTION, verifyScreen));
  router.post(`${PAGING_SECTION}/methods/:id/delete`, screen(services, PAGING_SECTION, deleteMethodScreen));
  router.post(`${PAGING_SECTION}/rules`, screen(services, PAGING_SECTION, addRuleScreen));
  router.post(`${PAGING_SECTION}/rules/:id/delete`, screen(services, PAGING_SECTION, deleteRuleScreen));
  router.get(INSIGHTS_SECTION, screen(services, INSIGHTS_SECTION, insightsScreen));
  router.get('/deployments', screen(services, '/deployments', deploymentsScreen));
  if (deliveryLog) router.get('/deliveries', screen(services, '/deliveries', deliveriesScreen(deliveryLog)));
  router.get('/account', screen(services, '/account', accountScreen));
  router.post('/account/tokens', screen(services, '/account', createTokenScreen));
  router.post('/account/tokens/:id/revoke', screen(services, '/account', revokeTokenScreen));
  configRoutes(router, services);
  return router;
}
