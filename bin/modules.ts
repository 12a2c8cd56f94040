/**
 * The one list of the service's modules, in mount order: bin/serve.ts serves it and the tests' harness starts the
 * same list. Adding a part is one folder exporting a Module and one line here.
 */
import type { Module } from '../engine/module.ts';
import { exportModule } from '../export/module.ts';
import { webhooksModule } from '../webhooks/module.ts';
import { listWebhookDeliveries } from '../webhooks/delivery-log/tool.ts';
import { statusPageModule } from '../web/status-page/module.ts';
import { consoleModule } from '../web/console/module.ts';
import { SIGN_IN_SLOWDOWN } from '../web/console/sign-in-throttle.ts';
import { countStore, credentialLimiter } from '../engine/rate-limit/store.ts';
import { alertsModule } from '../domain/alerts/module.ts';
import { timelineModule } from '../domain/timeline/module.ts';
import { boardModule } from '../domain/board/module.ts';
import { trackersModule } from '../domain/trackers/module.ts';
import { serviceBindingsModule } from '../domain/service-bindings/module.ts';
import { fixesModule } from '../domain/fixes/module.ts';
import { aiModule } from '../domain/ai/module.ts';
import { sloModule } from '../domain/slo/module.ts';
import { checksModule } from '../domain/checks/module.ts';
import { statusPageSubscribersModule } from '../domain/status-page/module.ts';
import { SUBSCRIBE_LIMIT } from '../domain/status-page/subscribers.ts';
import { heartbeatsModule } from '../domain/heartbeats/module.ts';
import { oncallModule } from '../domain/oncall/module.ts';
import { insightsModule } from '../domain/insights/module.ts';
import { accountModule } from '../domain/account/module.ts';
import { pagingModule } from '../domain/paging/module.ts';
import { pagingContactsModule } from '../domain/paging/contacts-module.ts';
import { pageLinksModule } from '../web/paging/module.ts';
import { outboundModule } from '../outbound/module.ts';
import { chatModule } from '../outbound/chat/module.ts';
import { emailModule } from '../outbound/email/module.ts';

/**
 * The modules, each taking its deployment settings one way: from `services.config` (declared where the part lives,
 * filled by bin/serve.ts from bin/env.ts), never as arguments here.
 */
export function modules(): Module[] {
  return [
    exportModule,
    webhooksModule,
    // subscribe requests per client address, in the store the other limits use
    statusPageModule({ subscribeLimiter: (services) => credentialLimiter(SUBSCRIBE_LIMIT, services.config.webhooks ?? {}, 'vigil_status_subscribe')(services) }),
    // failed sign-ins are counted in the store the API's and webhooks' limits use (memory, PostgreSQL or Redis)
    consoleModule({
      signInCounts: (services) => countStore(services.config.webhooks ?? {}, 'vigil_sign_in', SIGN_IN_SLOWDOWN.forgetSeconds)(services),
      deliveryLog: listWebhookDeliveries,
    }),
    alertsModule,
    timelineModule,
    boardModule,
    trackersModule,
    serviceBindingsModule,
    fixesModule,
    aiModule,
    outboundModule,
    sloModule,
    checksModule,
    // heartbeat deadlines are swept at the checks' cadence (VIGIL_CHECK_TICK_SECONDS)
    heartbeatsModule,
    statusPageSubscribersModule,
    oncallModule,
    insightsModule,
    accountModule,
    pagingModule,
    pagingContactsModule,
    pageLinksModule,
    chatModule,
    emailModule,
  ];
}
